"""Reads of curated data. The record reader stays within its disclosed statement budget."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import connection, models

from .models import ExternalCitationMeasurement, Observation, Paper
from .states import VERIFIED_STATUSES

RECORD_CAP = 100  # the most observations itemised in each list (v1 caps.outbound/inbound)
RECORD_STATEMENT_BUDGET = 6  # v1 caps.database_statements: reading one record never issues more


@dataclass
class RecordData:
    """Everything the v1 builder needs for one paper, read in at most five statements."""

    paper: Paper
    outbound: list[Observation]
    inbound: list[Observation]
    outbound_total: int
    inbound_total: int
    state_counts: dict[str, int]
    standing_sources: list[dict[str, str]]
    measurements: list[ExternalCitationMeasurement] = field(default_factory=list)


def _live_outbound(paper: Paper) -> Any:
    return Observation.objects.filter(paper=paper, retired_at__isnull=True)


def _verified_inbound(paper: Paper) -> Any:
    return Observation.objects.filter(
        cited_paper=paper, retired_at__isnull=True, resolution__status__in=VERIFIED_STATUSES
    )


_SUMMARY_SQL = """
SELECT
  (SELECT count(*) FROM curation_observation o
     WHERE o.paper_id = %(paper)s AND o.retired_at IS NULL),
  (SELECT coalesce(json_object_agg(s.status, s.n), '{}'::json) FROM (
     SELECT r.status, count(*) AS n FROM curation_observation o
       JOIN curation_resolution r ON r.observation_id = o.id
     WHERE o.paper_id = %(paper)s AND o.retired_at IS NULL GROUP BY r.status) s),
  (SELECT count(*) FROM curation_observation o
     JOIN curation_resolution r ON r.observation_id = o.id
     WHERE o.cited_paper_id = %(paper)s AND o.retired_at IS NULL
       AND r.status = ANY(%(verified)s)),
  (SELECT coalesce(json_agg(json_build_object('observed_at', x.t, 'source', x.src)
                            ORDER BY x.src), '[]'::json) FROM (
     SELECT rc->>'source' AS src, max(rc->>'observed_at') AS t
       FROM curation_observation o
       JOIN curation_standingnotice n ON n.observation_id = o.id
       CROSS JOIN LATERAL jsonb_array_elements(n.source_receipts) rc
     WHERE o.paper_id = %(paper)s AND o.retired_at IS NULL GROUP BY 1) x)
"""


def _record_summary(paper: Paper) -> tuple[int, dict[str, int], int, list[dict[str, str]]]:
    """Count outbound and inbound, states, and latest receipts per source in one statement."""
    # Receipt times are stored in one fixed-width UTC format, so max() on text is max() on time.
    with connection.cursor() as cursor:
        cursor.execute(_SUMMARY_SQL, {"paper": paper.pk, "verified": list(VERIFIED_STATUSES)})
        outbound_total, state_counts, inbound_total, sources = cursor.fetchone()
    return outbound_total, dict(state_counts), inbound_total, list(sources)


def record_data(arxiv_id: str) -> RecordData | None:
    """Return what a paper's citation record is built from, or None for an unknown paper."""
    paper = Paper.objects.filter(arxiv_id=arxiv_id).first()
    if paper is None:
        return None
    outbound = list(
        _live_outbound(paper)
        .select_related("resolution", "standing_notice", "cited_paper")
        .order_by("reference_index", "id")[:RECORD_CAP]
    )
    for observation in outbound:
        observation.paper = paper  # the citing paper is already in hand: no extra query
    inbound = list(
        _verified_inbound(paper)
        .select_related("paper", "resolution", "standing_notice", "cited_paper")
        .order_by("paper__arxiv_id", "reference_index", "id")[:RECORD_CAP]
    )
    outbound_total, state_counts, inbound_total, sources = _record_summary(paper)
    measurements = list(paper.measurements.all())
    return RecordData(
        paper=paper,
        outbound=outbound,
        inbound=inbound,
        outbound_total=outbound_total,
        inbound_total=inbound_total,
        state_counts=state_counts,
        standing_sources=sources,
        measurements=measurements,
    )


def live_outbound(arxiv_id: str) -> list[Observation] | None:
    """Return every live outbound observation of a paper (no cap), or None if it is unknown."""
    paper = Paper.objects.filter(arxiv_id=arxiv_id).first()
    if paper is None:
        return None
    observations = list(
        _live_outbound(paper)
        .select_related("resolution", "standing_notice", "cited_paper")
        .order_by("reference_index", "id")
    )
    for observation in observations:
        observation.paper = paper
    return observations


def inbound_state_counts(paper: Paper) -> dict[str, int]:
    """Return how many live observations of other papers link this one, by state."""
    rows = (
        Observation.objects.filter(cited_paper=paper, retired_at__isnull=True)
        .values_list("resolution__status")
        .annotate(n=models.Count("id"))
    )
    return {status or "unresolved": n for status, n in rows}


def paper_exists(arxiv_id: str) -> bool:
    """Return whether the paper is known."""
    return Paper.objects.filter(arxiv_id=arxiv_id).exists()
