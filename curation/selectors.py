"""Reads of curated data. The record reader stays within its disclosed statement budget."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, connections, models

from .models import ExternalCitationMeasurement, Observation, Paper
from .states import VERIFIED_STATUSES, ResolutionStatus

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


# --- curator work queues: the admin's queue filter and the admin index's counts read these ------

# Below this planner estimate an exact count is cheap enough to be worth it.
EXACT_COUNT_BELOW = 20_000
_NEEDS_DECISION = (
    ResolutionStatus.UNRESOLVED,
    ResolutionStatus.METADATA_MISMATCH,
    ResolutionStatus.PARSE_UNCERTAIN,
    ResolutionStatus.MALFORMED_IDENTIFIER,
)
_LIVE = models.Q(retired_at__isnull=True)


@dataclass(frozen=True)
class WorkQueue:
    """One curator queue: its name on screen and the (indexed) condition that selects it."""

    key: str
    label: str
    condition: models.Q


# A curator's decision pins the observation: "to fix" is what nobody has decided yet (partial
# index obs_queue_undecided), and decided references have their own queue (index obs_pinned).
WORK_QUEUES: dict[str, WorkQueue] = {
    q.key: q
    for q in (
        WorkQueue(
            "to_fix",
            "to fix",
            _LIVE
            & models.Q(no_canonical_record=False, pinned=False)
            & (
                models.Q(resolution__status__in=_NEEDS_DECISION) | models.Q(resolution__isnull=True)
            ),
        ),
        WorkQueue("decided", "decided by a curator", _LIVE & models.Q(pinned=True)),
        WorkQueue(
            "spot_check",
            "verified fuzzy (spot-check)",
            _LIVE & models.Q(pinned=False, resolution__status=ResolutionStatus.VERIFIED_FUZZY),
        ),
        WorkQueue(
            "disagreements",
            "resolver disagrees with curator",
            _LIVE & models.Q(pinned=True, resolver_disagreement__isnull=False),
        ),
        WorkQueue("no_record", "no canonical record", _LIVE & models.Q(no_canonical_record=True)),
        WorkQueue("live", "all live references", _LIVE),
        WorkQueue("retired", "retired", models.Q(retired_at__isnull=False)),
    )
}
DEFAULT_WORK_QUEUE = "to_fix"
COUNTED_WORK_QUEUES = ("to_fix", "decided", "spot_check", "disagreements", "no_record")


def work_queue(key: str | None) -> WorkQueue:
    """Return the queue of this key (the default queue for an unknown or missing key)."""
    return WORK_QUEUES.get(key or DEFAULT_WORK_QUEUE, WORK_QUEUES[DEFAULT_WORK_QUEUE])


def planner_rows(queryset: Any) -> int:
    """Return PostgreSQL's estimate of how many rows the queryset returns (EXPLAIN, no scan)."""
    compiler = queryset.query.get_compiler(using=queryset.db)
    sql, params = compiler.as_sql()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


def estimated_count(queryset: Any) -> tuple[int, bool]:
    """Return (rows, estimated): exact below EXACT_COUNT_BELOW, else the planner's estimate."""
    unordered = queryset.order_by()
    estimate = planner_rows(unordered)
    if estimate < EXACT_COUNT_BELOW:
        return int(unordered.count()), False
    return estimate, True


@dataclass(frozen=True)
class QueueCount:
    """How many references a work queue holds (estimated on large queues)."""

    queue: WorkQueue
    count: int
    estimated: bool


def work_queue_counts() -> list[QueueCount]:
    """Return the size of each counted work queue, as the queue itself would list it."""
    counts = []
    for key in COUNTED_WORK_QUEUES:
        queue = WORK_QUEUES[key]
        count, estimated = estimated_count(Observation.objects.filter(queue.condition))
        counts.append(QueueCount(queue, count, estimated))
    return counts
