"""Build valid pith.paper-citation-record.v1 documents of any size for tests."""

from __future__ import annotations

import uuid
from typing import Any

from curation.record.canonical import context_digest, observation_digest
from curation.states import ResolutionStatus

T0 = "2026-08-11T12:21:38.800001Z"


def paper_ref(arxiv_id: str, title: str | None = None) -> dict[str, Any]:
    """Return a citing_paper / cited_paper block."""
    return {
        "arxiv_id": arxiv_id,
        "last_updated": "2024-12-18T22:15:11Z",
        "snapshot_observed_at": "2026-08-15T07:35:31.387494Z",
        "submitted_at": "2024-12-18T22:15:11Z",
        "title": title or f"Paper {arxiv_id}",
        "version": 1,
    }


def observation(
    citing: str,
    index: int,
    cited: str | None = None,
    status: str = "unresolved",
    title: str | None = None,
) -> dict[str, Any]:
    """Return one v1 observation with its digest."""
    links = {"citing_paper": f"/paper/{citing}"}
    if cited:
        links["cited_paper"] = f"/paper/{cited}"
    item: dict[str, Any] = {
        "citation": {
            "cited_paper": paper_ref(cited) if cited else None,
            "cited_work": {
                "arxiv_id": None,
                "doi": None,
                "metadata_source": "raw_reference",
                "pith_arxiv_id": cited,
                "snapshot_observed_at": T0,
                "title": title or f"Reference {index} of {citing}",
                "venue": None,
                "work_id": str(uuid.uuid4()),
                "year": 2020,
            },
            "citing_paper": paper_ref(citing),
            "reference_index": index,
            "source": "arxiv_source",
            "source_observed_at": T0,
        },
        "links": links,
        "observation_id": str(uuid.uuid4()),
        "resolution": {
            "observed_at": T0,
            "resolver_source": "local_arxiv" if cited else None,
            "status": status,
        },
        "standing_notice": {
            "events": [],
            "observation": "No event found in the named queried sources as of 2026-08-19T06:32:44.657259+00:00.",
            "reason": None,
            "source_receipts": [
                {"observed_at": "2026-08-19T06:32:44.657259+00:00", "source": "crossref"}
            ],
            "state": "measured",
        },
    }
    item["observation_digest"] = observation_digest(item)
    return item


def record(
    arxiv_id: str, outbound: list[dict[str, Any]], inbound: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Return a v1 record document around the given observations (derived fields filled)."""
    inbound = inbound or []
    states = [status.value for status in ResolutionStatus]
    counts = {s: sum(1 for o in outbound if o["resolution"]["status"] == s) for s in states}
    doc: dict[str, Any] = {
        "as_of": "2026-08-20T03:56:00Z",
        "caps": {"database_statements": 6, "inbound": 100, "outbound": 100},
        "coverage": [
            {
                "denominator": len(outbound),
                "lane": lane,
                "note": "",
                "records_observed": len(outbound),
                "source": "",
                "source_observed_at": None,
                "state": "measured",
            }
            for lane in (
                "reference_resolution",
                "standing_notices",
                "inbound_itemization",
                "external_citation_measurements",
            )
        ],
        "external_citation_measurements": [],
        "inbound": inbound,
        "links": {
            "evidence": "/evidence",
            "html": f"/paper/{arxiv_id}/citation-record",
            "integrity": f"/paper/{arxiv_id}/integrity",
            "json": f"/paper/{arxiv_id}/citation-record.json",
            "paper": f"/paper/{arxiv_id}",
        },
        "outbound": outbound,
        "paper": {
            "arxiv_id": arxiv_id,
            "last_updated": "2024-12-18T22:15:11Z",
            "latest_version": 1,
            "primary_category": "cs.DC",
            "snapshot_observed_at": "2026-08-15T07:35:31.387494Z",
            "submitted_at": "2024-12-18T22:15:11Z",
            "title": f"Paper {arxiv_id}",
        },
        "reference_resolution": {
            "displayed": len(outbound),
            "state_counts": counts,
            "total_outbound_references": len(outbound),
        },
        "refusal": "A citation records a reference. It does not transfer a finding from one paper to another.",
        "schema": "pith.paper-citation-record.v1",
        "standing_sources": [],
        "thesis": "",
    }
    doc["context_digest"] = context_digest(doc)
    return doc


def reseal(doc: dict[str, Any]) -> dict[str, Any]:
    """Recompute every digest after a test edits a document."""
    for item in doc["outbound"] + doc["inbound"]:
        item["observation_digest"] = observation_digest(item)
    doc["context_digest"] = context_digest(doc)
    return doc
