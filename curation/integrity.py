"""Integrity findings for a paper, computed from citerec's own data (no new judgement).

Each finding states a fact about one reference — what a named source reports about the cited
work, or what the stored resolution says — with a severity. The verdict is "clean" only when
no finding is critical or advisory.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .record.builder import observation_v1
from .selectors import live_outbound

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


def _event_findings(ref: int, obs_id: str, notice: dict[str, Any]) -> list[Finding]:
    findings = []
    for event in notice["events"]:
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


def _resolution_finding(ref: int, obs_id: str, item: dict[str, Any]) -> Finding | None:
    status = item["resolution"]["status"]
    work = item["citation"]["cited_work"] or {}
    identifier = work.get("doi") or work.get("arxiv_id")
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
    if status == "unresolved" and identifier:
        return Finding(
            ADVISORY,
            "identifier_unresolved",
            ref,
            obs_id,
            f"Reference {ref}: its identifier {identifier} resolves to no known record.",
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


def _observed_times(item: dict[str, Any]) -> list[str]:
    times = [item["citation"]["source_observed_at"], item["resolution"]["observed_at"]]
    # Receipt times use +00:00; make them comparable with the Z timestamps.
    times += [
        r["observed_at"].replace("+00:00", "Z") for r in item["standing_notice"]["source_receipts"]
    ]
    return [t for t in times if t]


def integrity_report(arxiv_id: str) -> dict[str, Any] | None:
    """Return the findings, counts and verdict for a paper, or None if the paper is unknown."""
    observations = live_outbound(arxiv_id)
    if observations is None:
        return None
    findings: list[Finding] = []
    times: list[str] = []
    for observation in observations:
        item = observation_v1(observation)
        ref, obs_id = item["citation"]["reference_index"], item["observation_id"]
        findings += _event_findings(ref, obs_id, item["standing_notice"])
        resolution_finding = _resolution_finding(ref, obs_id, item)
        if resolution_finding:
            findings.append(resolution_finding)
        times += _observed_times(item)
    findings.sort(key=lambda f: (SEVERITIES.index(f.severity), f.reference_index, f.kind))
    counts = {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}
    return {
        "paper": arxiv_id,
        "verdict": "not_clean" if counts[CRITICAL] or counts[ADVISORY] else "clean",
        "data_observed_at": max(times) if times else None,
        "references_examined": len(observations),
        "counts": counts,
        "findings": [asdict(f) for f in findings],
    }
