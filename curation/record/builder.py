"""The pith.paper-citation-record.v1 builder: the one place the record format is made (SPEC §1).

Derived fields (thesis, coverage, counts, standing sources, digests) are computed here from the
stored data, never stored themselves.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..models import Observation, Paper, Resolution, StandingNotice
from ..states import ResolutionStatus
from .canonical import canonical_json, context_digest, observation_digest
from .fragments import missing_notice_reason, unavailable_notice
from .selectors import RECORD_CAP, RECORD_STATEMENT_BUDGET, RecordData, record_data
from .timestamps import format_micro_z, format_seconds, truncate_to_minute

SCHEMA = "pith.paper-citation-record.v1"
REFUSAL = (
    "A citation records a reference. It does not transfer a finding from one paper to another."
)

_COVERAGE_TEXT = {
    "reference_resolution": (
        "Typed states for the displayed outbound observations.",
        "paper_references, paper_reference_links",
    ),
    "standing_notices": (
        "One-hop event checks from named stored sources.",
        "scholarly_work_events, retraction_status_cache",
    ),
    "inbound_itemization": (
        "Pith citing papers itemized under the disclosed page cap.",
        "paper_references, paper_reference_links",
    ),
    "external_citation_measurements": (
        "A source-named dated measurement, never combined with another source.",
        "cited_works",
    ),
}


def paper_path(arxiv_id: str) -> str:
    """Return the public path of a paper; old-style ids keep their slash, as on arXiv."""
    return f"/paper/{arxiv_id}"


def record_links(arxiv_id: str) -> dict[str, str]:
    """Return the v1 `links` of a paper's record."""
    base = paper_path(arxiv_id)
    return {
        "evidence": "/evidence",
        "html": f"{base}/citation-record",
        "integrity": f"{base}/integrity",
        "json": f"{base}/citation-record.json",
        "paper": base,
    }


def _paper_ref(paper: Paper) -> dict[str, Any]:
    """Return a paper as a citing_paper / cited_paper block."""
    return {
        "arxiv_id": paper.arxiv_id,
        "last_updated": format_seconds(paper.last_updated),
        "snapshot_observed_at": format_micro_z(paper.snapshot_observed_at),
        "submitted_at": format_seconds(paper.submitted_at),
        "title": paper.title,
        "version": paper.latest_version,
    }


def _cited_work(observation: Observation) -> dict[str, Any] | None:
    if not observation.work_described:
        return None
    return {
        "arxiv_id": observation.work_arxiv_id,
        "doi": observation.work_doi,
        "metadata_source": observation.work_metadata_source,
        "pith_arxiv_id": observation.work_pith_arxiv_id,
        "snapshot_observed_at": format_micro_z(observation.work_snapshot_observed_at),
        "title": observation.work_title,
        "venue": observation.work_venue,
        "work_id": str(observation.work_id) if observation.work_id else None,
        "year": observation.work_year,
    }


def _resolution(observation: Observation) -> dict[str, Any]:
    resolution: Resolution | None = getattr(observation, "resolution", None)
    if resolution is None:  # never resolved and not imported (SPEC §2 table, last row)
        return {
            "observed_at": format_micro_z(observation.source_observed_at),
            "resolver_source": None,
            "status": ResolutionStatus.UNRESOLVED.value,
        }
    return {
        "observed_at": format_micro_z(resolution.observed_at),
        "resolver_source": resolution.resolver_source,
        "status": resolution.status,
    }


def _standing_notice(observation: Observation) -> dict[str, Any]:
    notice: StandingNotice | None = getattr(observation, "standing_notice", None)
    if notice is None:  # not computed yet: the rule a computed notice follows (fragments)
        linked = observation.cited_work_id is not None or observation.cited_paper_id is not None
        fields = unavailable_notice(missing_notice_reason(linked=linked))
        return {name: fields[name] for name in ("events", "reason", "source_receipts", "state")}
    block: dict[str, Any] = {
        "events": notice.events,
        "reason": notice.reason,
        "source_receipts": notice.source_receipts,
        "state": notice.state,
    }
    if notice.observation_text is not None:
        block["observation"] = notice.observation_text
    return block


def observation_v1(observation: Observation) -> dict[str, Any]:
    """Return one observation in v1 form, with its digest."""
    links = {"citing_paper": paper_path(observation.paper.arxiv_id)}
    cited_paper = observation.cited_paper
    if cited_paper is not None:
        links["cited_paper"] = paper_path(cited_paper.arxiv_id)
    block: dict[str, Any] = {
        "citation": {
            "cited_paper": _paper_ref(cited_paper) if cited_paper is not None else None,
            "cited_work": _cited_work(observation),
            "citing_paper": _paper_ref(observation.paper),
            "reference_index": observation.reference_index,
            "source": observation.source,
            "source_observed_at": format_micro_z(observation.source_observed_at),
        },
        "links": links,
        "observation_id": str(observation.id),
        "resolution": _resolution(observation),
        "standing_notice": _standing_notice(observation),
    }
    block["observation_digest"] = observation_digest(block)
    return block


def _latest(values: list[str | None]) -> str | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _coverage_lane(lane: str, denominator: int, observed: int, at: str | None) -> dict[str, Any]:
    note, source = _COVERAGE_TEXT[lane]
    return {
        "denominator": denominator,
        "lane": lane,
        "note": note,
        "records_observed": observed,
        "source": source,
        "source_observed_at": at,
        "state": "measured",
    }


def _coverage(
    data: RecordData, outbound: list[dict[str, Any]], inbound: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Return the four coverage lanes in their fixed order."""
    # All stored timestamps share one fixed-width UTC format, so max() on text is max() on time.
    receipts = [r["observed_at"] for o in outbound for r in o["standing_notice"]["source_receipts"]]
    # SPEC §1: observations with a notice state. Every observation has one, stored or not
    # ("canonical work link unavailable" is a state too), so a record citerec built counts all.
    with_notice = sum(1 for o in outbound if o["standing_notice"]["state"])
    measured_at = [m.document.get("observed_at") for m in data.measurements]
    return [
        _coverage_lane(
            "reference_resolution",
            len(outbound),
            len(outbound),
            _latest([o["citation"]["source_observed_at"] for o in outbound]),
        ),
        _coverage_lane("standing_notices", len(outbound), with_notice, _latest(receipts)),
        _coverage_lane(
            "inbound_itemization",
            data.inbound_total,
            len(inbound),
            _latest([o["citation"]["source_observed_at"] for o in inbound]),
        ),
        _coverage_lane(
            "external_citation_measurements", 1, len(data.measurements), _latest(measured_at)
        ),
    ]


def _thesis(as_of: datetime, displayed: int, total: int, inbound: int, arxiv_id: str) -> str:
    day = f"{as_of.day} {as_of.strftime('%B')} {as_of.year}"
    return (
        f"As of {day}, this Paper Citation Record lists {displayed} of {total} outbound references "
        f"and {inbound} inbound Pith citation observations for arXiv:{arxiv_id}."
    )


def _paper_block(paper: Paper) -> dict[str, Any]:
    return {
        "arxiv_id": paper.arxiv_id,
        "last_updated": format_seconds(paper.last_updated),
        "latest_version": paper.latest_version,
        "primary_category": paper.primary_category,
        "snapshot_observed_at": format_micro_z(paper.snapshot_observed_at),
        "submitted_at": format_seconds(paper.submitted_at),
        "title": paper.title,
    }


def build_record_from(data: RecordData, as_of: datetime) -> dict[str, Any]:
    """Return the v1 record for already-read data at the given time (truncated to the minute)."""
    as_of = truncate_to_minute(as_of)
    outbound = [observation_v1(o) for o in data.outbound]
    inbound = [observation_v1(o) for o in data.inbound]
    counts = {status.value: data.state_counts.get(status.value, 0) for status in ResolutionStatus}
    record: dict[str, Any] = {
        "as_of": format_seconds(as_of),
        "caps": {
            "database_statements": RECORD_STATEMENT_BUDGET,
            "inbound": RECORD_CAP,
            "outbound": RECORD_CAP,
        },
        "coverage": _coverage(data, outbound, inbound),
        "external_citation_measurements": [m.document for m in data.measurements],
        "inbound": inbound,
        "links": record_links(data.paper.arxiv_id),
        "outbound": outbound,
        "paper": _paper_block(data.paper),
        "reference_resolution": {
            "displayed": len(outbound),
            "state_counts": counts,
            "total_outbound_references": data.outbound_total,
        },
        "refusal": REFUSAL,
        "schema": SCHEMA,
        "standing_sources": data.standing_sources,
        "thesis": _thesis(
            as_of, len(outbound), data.outbound_total, data.inbound_total, data.paper.arxiv_id
        ),
    }
    record["context_digest"] = context_digest(record)
    return record


def build_record(arxiv_id: str, as_of: datetime) -> dict[str, Any] | None:
    """Return the v1 record of a paper, or None when the paper is unknown."""
    data = record_data(arxiv_id)
    if data is None:
        return None
    return build_record_from(data, as_of)


def record_bytes(record: dict[str, Any]) -> bytes:
    """Return the record's canonical bytes, as exported and served."""
    return canonical_json(record)
