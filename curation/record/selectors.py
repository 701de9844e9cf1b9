"""Reads for serving records: what a record is built from (within its disclosed statement
budget), its current version (one indexed statement), and which records changed since when."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection, models

from curation.models import ExternalCitationMeasurement, Observation, Paper
from curation.server_cursors import server_bound_cursor
from curation.states import VERIFIED_STATUSES

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


def papers_by_record_change() -> models.QuerySet[Paper]:
    """Return the papers some observation points or pointed at (outbound or inbound), each
    annotated with the time its record last changed substantively (record_changed_at).

    The time is stored per record (RecordChange, kept by triggers) and indexed, so the feed
    reads a page of it in change order; the catalogue's millions of papers no observation ever
    named have no row.
    """
    return Paper.objects.filter(record_change__isnull=False).annotate(
        record_changed_at=models.F("record_change__changed_at")
    )


def papers_changed_since(
    papers: models.QuerySet[Paper], *, since: datetime
) -> models.QuerySet[Paper]:
    """Return those papers whose record changed substantively at or after since."""
    return papers.filter(record_change__changed_at__gte=since)


def papers_with_records(*, after: str | None = None) -> models.QuerySet[Paper]:
    """Return the papers with outbound observations (a record), by arXiv id, after `after`."""
    papers = Paper.objects.filter(outbound__isnull=False).distinct().order_by("arxiv_id")
    return papers.filter(arxiv_id__gt=after) if after is not None else papers


# --- the version a served record is at -------------------------------------------------------

# Both lookups are by primary or unique key: the paper by arxiv_id, its version by paper id.
_VERSION_SQL = """
SELECT p.id, v.token FROM curation_paper p
  LEFT JOIN record_recordversion v ON v.paper_id = p.id
 WHERE p.arxiv_id = %s
"""


@dataclass(frozen=True)
class Version:
    """Which state of a paper's record is current: the paper and its last bump's token."""

    paper_pk: int
    token: str  # "0" while nothing the record shows has changed since the paper was stored

    @property
    def key(self) -> str:
        """Return a cache key part naming this version (never reused for other content)."""
        return f"{self.paper_pk}:{self.token}"


def record_version(arxiv_id: str) -> Version | None:
    """Return the current version of a paper's record, or None for an unknown paper."""
    with server_bound_cursor() as cursor:
        cursor.execute(_VERSION_SQL, [arxiv_id])
        row = cursor.fetchone()
    if row is None:
        return None
    paper_pk, token = row
    return Version(paper_pk, "0" if token is None else token.hex)
