"""Fast read representations: plain dicts built from prefetched rows.

DRF serializers describe these shapes for the OpenAPI schema (api/serializers.py) and delegate
to these functions, because instantiating nested ModelSerializers per row cost more than the
database for a 50-row page. Schemathesis checks that the two agree.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from curation.models import CitedWork, Observation, Paper, Resolution, StandingNotice
from curation.record.builder import paper_path, record_links
from curation.resolution.versions import shown_version


def timestamp(value: datetime | None) -> str | None:
    """Format a time as DRF does: ISO 8601, UTC as Z."""
    if value is None:
        return None
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def paper_json(paper: Paper) -> dict[str, Any]:
    """Return a paper with the links to its record."""
    return {
        "arxiv_id": paper.arxiv_id,
        "title": paper.title,
        "authors": paper.authors,
        "doi": paper.doi,
        "categories": paper.categories.split(),
        "primary_category": paper.primary_category,
        "latest_version": paper.latest_version,
        "submitted_at": timestamp(paper.submitted_at),
        "last_updated": timestamp(paper.last_updated),
        "snapshot_observed_at": timestamp(paper.snapshot_observed_at),
        "journal_ref": paper.journal_ref,
        "comments": paper.comments,
        "in_catalogue": paper.in_catalogue,
        "links": {
            **record_links(paper.arxiv_id),
            "api_record": f"/api/v1/records/{paper.arxiv_id}",
        },
    }


def resolution_json(resolution: Resolution | None) -> dict[str, Any] | None:
    """Return the current resolution with its evidence, or None."""
    if resolution is None:
        return None
    return {
        "status": resolution.status,
        "resolver_source": resolution.resolver_source,
        "observed_at": timestamp(resolution.observed_at),
        "origin": resolution.origin,
        "resolver_version": resolution.resolver_version,
        "evidence": resolution.evidence,
    }


def notice_json(notice: StandingNotice | None) -> dict[str, Any] | None:
    """Return the stored standing notice, or None."""
    if notice is None:
        return None
    return {
        "state": notice.state,
        "reason": notice.reason,
        "observation": notice.observation_text,
        "events": notice.events,
        "source_receipts": notice.source_receipts,
        "origin": notice.origin,
        "refreshed_at": timestamp(notice.refreshed_at),
    }


def described_work_json(observation: Observation) -> dict[str, Any]:
    """Return the work as the reference describes it (v1 `citation.cited_work`)."""
    return {
        "described": observation.work_described,
        "work_id": str(observation.work_id) if observation.work_id else None,
        "title": observation.work_title,
        "year": observation.work_year,
        "venue": observation.work_venue,
        "doi": observation.work_doi,
        "arxiv_id": observation.work_arxiv_id,
        "pith_arxiv_id": observation.work_pith_arxiv_id,
        "metadata_source": observation.work_metadata_source,
        "snapshot_observed_at": timestamp(observation.work_snapshot_observed_at),
    }


def version_set_json(observation: Observation) -> dict[str, str] | None:
    """Return the linked arXiv paper with the DOI it was published under, and how that is
    known (curation.resolution.versions), or None: v1 has no place for the published DOI of a
    reference that gave the arXiv id."""
    cited = observation.cited_paper
    if cited is None:
        return None
    resolution = getattr(observation, "resolution", None)
    return shown_version(cited.arxiv_id, cited.doi, resolution.evidence if resolution else None)


def observation_json(observation: Observation) -> dict[str, Any]:
    """Return one reference with everything citerec knows about it."""
    cited = observation.cited_paper
    links = {
        "self": f"/api/v1/observations/{observation.id}",
        "citing_paper": paper_path(observation.paper.arxiv_id),
    }
    if cited is not None:
        links["cited_paper"] = paper_path(cited.arxiv_id)
    return {
        "id": str(observation.id),
        "paper": observation.paper.arxiv_id,
        "reference_index": observation.reference_index,
        "source": observation.source,
        "source_observed_at": timestamp(observation.source_observed_at),
        "raw_text": observation.raw_text,
        "normalized_text": observation.normalized_text,
        "occurrence": observation.occurrence,
        "cited_paper": cited.arxiv_id if cited is not None else None,
        "cited_work": observation.cited_work_id,
        "version_set": version_set_json(observation),
        "work": described_work_json(observation),
        "resolution": resolution_json(getattr(observation, "resolution", None)),
        "standing_notice": notice_json(getattr(observation, "standing_notice", None)),
        "pinned": observation.pinned,
        "no_canonical_record": observation.no_canonical_record,
        "retired": observation.retired_at is not None,
        "retired_at": timestamp(observation.retired_at),
        "revision": observation.revision,
        "changed_at": timestamp(observation.changed_at),
        "links": links,
    }


def deleted_observation_json(event: Any) -> dict[str, Any]:
    """Return the tombstone of a deleted observation from its history delete event."""
    return {
        "id": str(event.pgh_obj_id),
        "paper": event.paper_arxiv_id,
        "reference_index": event.reference_index,
        "deleted_at": timestamp(event.pgh_created_at),
        "deleted": True,
    }


def record_change_json(paper: Paper) -> dict[str, Any]:
    """Return a paper of the change feed: when its record last changed, and where it is."""
    return {
        "arxiv_id": paper.arxiv_id,
        "changed_at": timestamp(paper.record_changed_at),  # type: ignore[attr-defined]
        "record": f"/api/v1/records/{paper.arxiv_id}",
    }


def cited_work_json(work: CitedWork) -> dict[str, Any]:
    """Return a canonical cited work with the number of live observations citing it."""
    return {
        "id": work.pk,
        "doi": work.doi,
        "arxiv_id": work.arxiv_id,
        "title": work.title,
        "created_at": timestamp(work.created_at),
        "citing_observations": work.citing_count,  # type: ignore[attr-defined]
    }
