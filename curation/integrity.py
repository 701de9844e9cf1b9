"""Integrity findings for a paper, computed from citerec's own data (no new judgement).

Each finding states a fact about one reference — what a named source reports about the cited
work, or what the stored resolution says — with a severity. The verdict is "clean" only when
no finding is critical or advisory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .selectors import IntegrityRow, integrity_data

CRITICAL, ADVISORY, INFORMATIONAL = "critical", "advisory", "informational"
SEVERITIES = (CRITICAL, ADVISORY, INFORMATIONAL)

EVENT_SEVERITY = {
    "retraction": CRITICAL,
    "withdrawal": CRITICAL,
    "removal": CRITICAL,
    "expression_of_concern": ADVISORY,
    "partial_retraction": ADVISORY,
    "correction": INFORMATIONAL,
    "reinstatement": INFORMATIONAL,
    "other": INFORMATIONAL,
}


@dataclass(frozen=True)
class Finding:
    """One fact about one reference, with its severity."""

    severity: str
    kind: str
    reference_index: int
    observation_id: str
    statement: str


def _event_findings(ref: int, obs_id: str, events: list[dict[str, Any]]) -> list[Finding]:
    findings = []
    for event in events:
        when = f" dated {event['date']}" if event["date"] else ""
        notice_id = event["notice_doi"] or event["notice_url"]
        where = f" (notice {notice_id})" if notice_id else ""
        statement = (
            f"Reference {ref}: {event['source']} reports a {event['type'].replace('_', ' ')}"
            f"{when} for the cited work{where}."
        )
        findings.append(
            Finding(EVENT_SEVERITY[event["type"]], event["type"], ref, obs_id, statement)
        )
    return findings


def _resolution_finding(row: IntegrityRow) -> Finding | None:
    ref, obs_id, status = row.reference_index, row.observation_id, row.status
    if status == "malformed_identifier":
        return Finding(
            ADVISORY, status, ref, obs_id, f"Reference {ref}: its identifier is malformed."
        )
    if status == "metadata_mismatch":
        return Finding(
            ADVISORY,
            status,
            ref,
            obs_id,
            f"Reference {ref}: its identifier and its title or year name different works.",
        )
    if status == "unresolved" and row.identifier:
        return Finding(
            ADVISORY,
            "identifier_unresolved",
            ref,
            obs_id,
            f"Reference {ref}: its identifier {row.identifier} resolves to no known record.",
        )
    if status == "parse_uncertain":
        return Finding(
            INFORMATIONAL,
            status,
            ref,
            obs_id,
            f"Reference {ref}: its text could not be read as a reference.",
        )
    return None


def integrity_report(arxiv_id: str) -> dict[str, Any] | None:
    """Return the findings, counts and verdict for a paper, or None if the paper is unknown."""
    data = integrity_data(arxiv_id)
    if data is None:
        return None
    findings: list[Finding] = []
    for row in data.rows:
        findings += _event_findings(row.reference_index, row.observation_id, row.events)
        resolution_finding = _resolution_finding(row)
        if resolution_finding:
            findings.append(resolution_finding)
    findings.sort(key=lambda f: (SEVERITIES.index(f.severity), f.reference_index, f.kind))
    counts = {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}
    return {
        "paper": arxiv_id,
        "verdict": "not_clean" if counts[CRITICAL] or counts[ADVISORY] else "clean",
        "data_observed_at": data.observed_at,
        "references_examined": len(data.rows),
        "counts": counts,
        # vars(), not asdict(): a finding holds only strings and ints, nothing to deep-copy.
        "findings": [dict(vars(f)) for f in findings],
    }
