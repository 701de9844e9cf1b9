"""Reads of curated data: papers, observations and works, the curator queues, history."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from uuid import UUID

from django.core.exceptions import EmptyResultSet, ValidationError
from django.db import connection, connections, models
from django.db.models.fields.json import KeyTextTransform
from django.utils import timezone
from pghistory.models import Context, Events

from .history import event_model
from .models import (
    CitedWork,
    GroupDecision,
    GroupDecisionMember,
    Observation,
    Paper,
    ReferenceGroup,
    ReferenceGroupMember,
)
from .permissions import CURATORS
from .search import text_matches
from .states import ResolutionStatus


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


# Where a search that finds nothing in one queue looks next: the queues that split the live
# references between them, and the retired ones.
_SEARCHED_ELSEWHERE = ("to_fix", "decided", "spot_check", "no_record", "retired")


def searched_elsewhere(current: str) -> list[WorkQueue]:
    """Return the other queues a search that found nothing in `current` is tried in."""
    return [WORK_QUEUES[key] for key in _SEARCHED_ELSEWHERE if key != current]


def queue_observations(key: str) -> models.QuerySet[Observation]:
    """Return the observations of a work queue."""
    return Observation.objects.filter(work_queue(key).condition)


def planner_rows(queryset: Any) -> int:
    """Return PostgreSQL's estimate of how many rows the queryset returns (EXPLAIN, no scan)."""
    compiler = queryset.query.get_compiler(using=queryset.db)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:  # a condition that can match nothing (a search of symbols only)
        return 0
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


# --- the integrity page: what its findings read of every live reference, and nothing else ----


@dataclass(frozen=True)
class IntegrityRow:
    """What the integrity findings read of one live reference (no evidence, no digest)."""

    observation_id: str
    reference_index: int
    status: str  # "unresolved" when never resolved (v1 shows it so)
    identifier: str | None  # the described work's DOI, else its arXiv id
    events: list[dict[str, Any]]


@dataclass(frozen=True)
class IntegrityData:
    """A paper's live references as its findings read them, and the latest time they rest on."""

    rows: list[IntegrityRow]
    observed_at: str | None  # latest source, resolution or receipt time (v1 "Z" format)


# One statement for the whole paper, and no JSON decoded but events: the latest source,
# resolution and receipt times are taken by the server (receipts say +00:00, made "Z" to compare
# as text: every stored time has one fixed-width format), events only where there are some.
_INTEGRITY_SQL = """
SELECT o.id::text, o.reference_index, o.work_described, o.work_doi, o.work_arxiv_id, r.status,
       CASE WHEN n.events <> '[]'::jsonb THEN n.events END,
       to_char(max(greatest(o.source_observed_at, r.observed_at)) OVER () AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
       max(CASE WHEN jsonb_typeof(n.source_receipts) = 'array' THEN (
             SELECT max(replace(rc->>'observed_at', '+00:00', 'Z'))
               FROM jsonb_array_elements(n.source_receipts) rc) END) OVER ()
  FROM curation_observation o
  LEFT JOIN curation_resolution r ON r.observation_id = o.id
  LEFT JOIN curation_standingnotice n ON n.observation_id = o.id
 WHERE o.paper_id = %s AND o.retired_at IS NULL
 ORDER BY o.reference_index, o.id
"""


def _json_value(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def integrity_data(arxiv_id: str) -> IntegrityData | None:
    """Return what the integrity findings need of a paper's live references, or None if unknown."""
    paper_pk = Paper.objects.filter(arxiv_id=arxiv_id).values_list("pk", flat=True).first()
    if paper_pk is None:
        return None
    with connection.cursor() as cursor:
        cursor.execute(_INTEGRITY_SQL, [paper_pk])
        fetched = cursor.fetchall()
    rows = [
        IntegrityRow(
            observation_id=obs_id,
            reference_index=ref,
            status=status or ResolutionStatus.UNRESOLVED.value,
            identifier=(doi or arxiv or None) if described else None,
            events=_json_value(events) or [],
        )
        for obs_id, ref, described, doi, arxiv, status, events, _, _ in fetched
    ]
    latest = [t for t in fetched[0][7:] if t] if fetched else []
    return IntegrityData(rows=rows, observed_at=max(latest) if latest else None)


def paper_by_arxiv_id(arxiv_id: str) -> Paper | None:
    """Return the paper of this arXiv id, or None."""
    return Paper.objects.filter(arxiv_id=arxiv_id).first()


def paper_pk(arxiv_id: str) -> int | None:
    """Return the primary key of the paper of this arXiv id, or None."""
    pk: int | None = Paper.objects.filter(arxiv_id=arxiv_id).values_list("pk", flat=True).first()
    return pk


# --- the API's reads: its lists, details, filters and history pages read these ---------------


def all_papers() -> models.QuerySet[Paper]:
    """Return every paper, catalogue entries included."""
    return Paper.objects.all()


def observations_with_parts() -> models.QuerySet[Observation]:
    """Return observations with their papers, resolution, notice and cite key, read in one
    statement (of what their list said, only the key: the rest is the resolver's)."""
    return Observation.objects.select_related(
        "paper", "cited_paper", "resolution", "standing_notice", "listing"
    ).defer("listing__stated", "listing__parse")


def observation_with_parts(pk: UUID) -> Observation:
    """Return one observation with its parts (Observation.DoesNotExist when there is none)."""
    return observations_with_parts().get(pk=pk)


def observation_by_pk(pk: UUID | str) -> Observation | None:
    """Return the observation of this key, or None (a malformed key names none)."""
    try:
        return Observation.objects.filter(pk=pk).first()
    except ValidationError:  # not a UUID
        return None


def same_text_observations(observation: Observation) -> models.QuerySet[Observation]:
    """Return the other live observations, in any paper, with the same normalised reference text."""
    if not observation.normalized_text:
        return Observation.objects.none()
    return Observation.objects.filter(
        normalized_text=observation.normalized_text, retired_at__isnull=True, raw_text__isnull=False
    ).exclude(pk=observation.pk)


def cited_works_with_counts() -> models.QuerySet[CitedWork]:
    """Return cited works with the number of live observations citing them (citing_count)."""
    live = models.Q(observations__retired_at__isnull=True)
    return CitedWork.objects.annotate(citing_count=models.Count("observations", filter=live))


def cited_work_by_pk(pk: int | str) -> CitedWork | None:
    """Return the cited work of this key, or None (a malformed key names none)."""
    try:
        return CitedWork.objects.filter(pk=pk).first()
    except ValueError:  # not an integer
        return None


def citing_arxiv_ids(work: CitedWork, *, limit: int) -> list[str]:
    """Return the arXiv ids of the first papers (by id) whose live observations cite work."""
    return list(
        Paper.objects.filter(outbound__cited_work=work, outbound__retired_at__isnull=True)
        .distinct()
        .order_by("arxiv_id")
        .values_list("arxiv_id", flat=True)[:limit]
    )


def history_events(obj: models.Model, *, with_parts: bool) -> models.QuerySet[Any]:
    """Return the history events of obj; with_parts, also those of rows that reference it."""
    # An observation's resolution and notice reference it: their events are its history too.
    events = Events.objects.references(obj) if with_parts else Events.objects.tracks(obj)
    return events  # type: ignore[no-any-return]


def is_curator(user: Any) -> bool:
    """Return whether the user belongs to the Curators group."""
    return bool(user.groups.filter(name=CURATORS).exists())


# --- for commands that walk the papers with a record -------------------------------------------


def papers_to_measure(arxiv_id: str | None = None) -> models.QuerySet[Paper]:
    """Return the paper of this id, or (None) every paper with a record and a published DOI."""
    if arxiv_id is not None:
        return Paper.objects.filter(arxiv_id=arxiv_id)
    return Paper.objects.exclude(doi="").filter(outbound__isnull=False).distinct()


def deleted_observation_events() -> models.QuerySet[Any]:
    """Return the observations' delete events, with the citing paper's arXiv id (paper_arxiv_id)."""
    arxiv_id = Paper.objects.filter(pk=models.OuterRef("paper_id")).values("arxiv_id")[:1]
    events = event_model("observation").objects.filter(pgh_label="delete")
    return events.annotate(paper_arxiv_id=models.Subquery(arxiv_id))  # type: ignore[no-any-return]


def observation_version(observation: Observation, event_id: int) -> Any:
    """Return the observation's history event with this id, or None (another row's event)."""
    return (
        event_model("Observation")
        .objects.filter(pgh_obj_id=observation.pk, pgh_id=event_id)
        .first()
    )


# --- history: the change log, an observation's changes, the names they show -----------------


def observation_events(observation_id: UUID, names: Sequence[str]) -> list[tuple[str, Any]]:
    """Return (model name, event) for every history event of the observation and its parts
    (`names`: "Observation", "Resolution", "StandingNotice"), each with its context."""
    return [
        (name, event)
        for name in names
        for event in event_model(name)
        .objects.filter(pgh_obj_id=observation_id)
        .select_related("pgh_context")
    ]


def history_batch(
    model_name: str, condition: models.Q, *, before: int | None, limit: int
) -> list[Any]:
    """Return up to `limit` events of one model matching `condition`, newest first, with their
    contexts, below the event id `before` (one index range: the change log's keyset paging)."""
    queryset = event_model(model_name).objects.filter(condition).select_related("pgh_context")
    if before is not None:
        queryset = queryset.filter(pgh_id__lt=before)
    return list(queryset.order_by("-pgh_id")[:limit])


def recent_context_ids(sources: Sequence[str], limit: int) -> list[Any]:
    """Return the ids of the latest history contexts written from these change sources."""
    source = KeyTextTransform("source", "metadata")  # ->> matches the index pgh_context_source
    return list(
        Context.objects.alias(source=source)
        .filter(source__in=list(sources))
        .order_by("-created_at")
        .values_list("pk", flat=True)[:limit]
    )


def previous_versions(model_name: str, event_ids: Sequence[int]) -> dict[int, Any]:
    """Return, by event id, the event before it of the same row (none for a row's first)."""
    model = event_model(model_name)
    before = model.objects.filter(
        pgh_obj_id=models.OuterRef("pgh_obj_id"), pgh_id__lt=models.OuterRef("pgh_id")
    ).order_by("-pgh_id")
    pairs = dict(
        model.objects.filter(pgh_id__in=list(event_ids))
        .annotate(before=models.Subquery(before.values("pgh_id")[:1]))
        .values_list("pgh_id", "before")
    )
    versions = {e.pgh_id: e for e in model.objects.filter(pgh_id__in=set(pairs.values()) - {None})}
    return {pgh_id: versions[b] for pgh_id, b in pairs.items() if b in versions}


def observations_with_papers(ids: Collection[str]) -> dict[str, Observation]:
    """Return these observations with their papers, by id as text."""
    found = Observation.objects.filter(pk__in=list(ids)).select_related("paper")
    return {str(o.pk): o for o in found}


def paper_titles(pks: Collection[str]) -> list[tuple[int, str, str]]:
    """Return (pk, arXiv id, title) of the papers with these primary keys (digits only)."""
    wanted = [p for p in pks if p.isdigit()]
    return list(Paper.objects.filter(pk__in=wanted).values_list("pk", "arxiv_id", "title"))


def cited_works_by_pks(pks: Collection[str]) -> list[CitedWork]:
    """Return the cited works with these primary keys (digits only)."""
    return list(CitedWork.objects.filter(pk__in=[w for w in pks if w.isdigit()]))


def last_candidates_event(observation: Observation) -> Any:
    """Return the observation's latest resolution event that listed candidates, or None."""
    return (
        event_model("Resolution")
        .objects.filter(pgh_obj_id=observation.pk, evidence__candidates__0__isnull=False)
        .order_by("-pgh_id")
        .only("evidence", "pgh_created_at")
        .first()
    )


def observation_for_evidence(pk: UUID) -> Observation | None:
    """Return the observation with what its evidence page shows, or None."""
    return (
        Observation.objects.select_related("paper", "resolution", "standing_notice", "cited_paper")
        .filter(pk=pk)
        .first()
    )


# --- the curators' work queue and observation page -----------------------------------------


def all_observations() -> models.QuerySet[Observation]:
    """Return every observation, retired ones too (the queue's filters narrow it)."""
    return Observation.objects.all()


def observation_for_page(pk: UUID) -> Observation | None:
    """Return the observation with what its curator page shows, or None."""
    return (
        Observation.objects.select_related("paper", "resolution", "cited_paper", "cited_work")
        .filter(pk=pk)
        .first()
    )


# A word search the planner expects to match fewer references than this reads its matches
# through the search index first; the limit is a safety net for an estimate far too low (a
# word so common that it would be far above the threshold is in the planner's statistics).
INDEX_FIRST_BELOW = 20_000
INDEX_FIRST_LIMIT = 100_000


def text_condition(term: str) -> models.Q:
    """Return "the reference's text holds term", in the form the planner runs fast (the admin
    search of the work queue).

    Few matches: read them through the search index first (the LIMIT keeps PostgreSQL from
    folding the subquery back in), then the queue orders them. As a plain condition the
    planner walked the queue's index in order, evaluating the search expression (to_tsvector
    over each reference's text, which it costs as a few operators) row after row until a page
    matched: 25,000 rows and 2.5 s for a word in 0.4 % of 1M references; at 10M a rarer word
    would walk millions (bench/README-scale.md). Many matches are dense in the queue's order:
    the walk is short, and reading them all first would not be (a word in a third of them).
    Not for identifiers: there the text is one branch of an OR with indexed columns, which
    PostgreSQL answers by a bitmap OR of the indexes; a subquery branch defeated that (2-3 s).
    """
    matches = Observation.objects.filter(text_matches(term)).order_by()  # a set: no sort
    if planner_rows(matches) < INDEX_FIRST_BELOW:
        return models.Q(pk__in=matches.values("pk")[:INDEX_FIRST_LIMIT])
    return text_matches(term)


# --- groups: one decision for many, the queue of groups by impact (issue 41) --------------


def group_queue() -> models.QuerySet[ReferenceGroup]:
    """Return the groups no curator decided with two or more undecided members, by impact:
    the citations one decision fixes, then the members whose work has notices (index
    group_queue: the first page is one index range, however many groups there are)."""
    return ReferenceGroup.objects.filter(decision__isnull=True, undecided__gte=2).order_by(
        "-undecided", "-noticed", "id"
    )


def decided_groups() -> models.QuerySet[ReferenceGroup]:
    """Return the groups with a standing decision, the latest decided first."""
    return (
        ReferenceGroup.objects.filter(decision__isnull=False)
        .select_related("decision")
        .order_by("-decision__decided_at")
    )


def group_by_pk(pk: int | str) -> ReferenceGroup | None:
    """Return the group of this key with its decision, or None (a malformed key names none)."""
    try:
        return ReferenceGroup.objects.select_related("decision").filter(pk=int(pk)).first()
    except ValueError:
        return None


def group_members(group: ReferenceGroup, *, limit: int) -> list[Observation]:
    """Return the group's first live members (with paper and resolution), by paper."""
    return list(
        Observation.objects.filter(group_membership__group=group, retired_at__isnull=True)
        .select_related("paper", "resolution", "cited_paper")
        .order_by("paper__arxiv_id", "reference_index")[:limit]
    )


def group_spellings(group: ReferenceGroup, *, limit: int) -> list[tuple[str, int]]:
    """Return the group's most frequent texts (normalised) with how many live members print each."""
    return list(
        Observation.objects.filter(group_membership__group=group, retired_at__isnull=True)
        .values_list("normalized_text")
        .annotate(n=models.Count("id"))
        .order_by("-n", "normalized_text")[:limit]
    )


def group_proposals(group: ReferenceGroup) -> list[GroupDecisionMember]:
    """Return the members proposed the group's standing decision (they joined with other text)."""
    if group.decision_id is None:
        return []
    return list(
        GroupDecisionMember.objects.filter(
            decision_id=group.decision_id, state=GroupDecisionMember.PROPOSED
        )
        .select_related("observation__paper")
        .order_by("created_at")[:100]
    )


@dataclass(frozen=True)
class GroupNote:
    """What a reference's page says of its group: the group, and the group decision proposed
    for it (it joined a decided group with other text), if any."""

    group: ReferenceGroup
    proposal: GroupDecisionMember | None


def group_note(observation: Observation) -> GroupNote | None:
    """Return the group of the reference when it has other live members, or None."""
    membership = (
        ReferenceGroupMember.objects.select_related("group__decision")
        .filter(observation_id=observation.pk, group__size__gte=2)
        .first()
    )
    if membership is None:
        return None
    group = membership.group
    proposal = None
    if group.decision_id is not None:
        proposal = GroupDecisionMember.objects.filter(
            decision_id=group.decision_id,
            observation_id=observation.pk,
            state=GroupDecisionMember.PROPOSED,
        ).first()
    return GroupNote(group, proposal)


RATE_WINDOW_HOURS = 24


@dataclass(frozen=True)
class QueueRate:
    """A queue's size, how fast curators empty it, and when it will be empty at that rate."""

    name: str
    size: int
    estimated: bool
    decisions: int  # in the window
    settled: int  # references settled in the window (a group decision settles many)
    window_hours: int

    @property
    def per_hour(self) -> float:
        """Return the decisions per hour over the window."""
        return self.decisions / self.window_hours

    @property
    def hours_to_empty(self) -> float | None:
        """Return the hours until the queue is empty at this rate (None: no decisions)."""
        return self.size / self.per_hour if self.decisions else None


def _curator_contexts(since: Any) -> models.QuerySet[Context]:
    """Return the history contexts of curators' changes (admin, API) since a time
    (index pgh_context_source_created: one range)."""
    source = KeyTextTransform("source", "metadata")
    return Context.objects.alias(source=source).filter(
        source__in=["admin", "api"], created_at__gte=since
    )


def queue_rates(*, hours: int = RATE_WINDOW_HOURS) -> list[QueueRate]:
    """Return the group queue's and the "to fix" queue's sizes and rates over the last hours."""
    since = timezone.now() - timedelta(hours=hours)
    groups, groups_estimated = estimated_count(group_queue())
    # An undone decision emptied nothing: only standing (or finished) ones count.
    decided = GroupDecision.objects.filter(decided_at__gte=since, undone_at__isnull=True)
    settled_by_groups = GroupDecisionMember.objects.filter(
        decision__in=decided, state=GroupDecisionMember.APPLIED
    ).count()
    to_fix, to_fix_estimated = estimated_count(queue_observations("to_fix"))
    # A curator's change that decided references (pinned them): an undo or a notice review
    # takes nothing off the queue.
    pinned = event_model("Observation").objects.filter(
        pgh_context_id__in=_curator_contexts(since).values("pk"), pinned=True
    )
    decisions = pinned.values("pgh_context_id").distinct().count()
    settled = pinned.values("pgh_obj_id").distinct().count()
    return [
        QueueRate(
            "groups to decide", groups, groups_estimated, decided.count(), settled_by_groups, hours
        ),
        QueueRate("references to fix", to_fix, to_fix_estimated, decisions, settled, hours),
    ]
