"""Standing notices computed from stored source data, and kept in step with links (SPEC §1, §4).

An observation's standing notice is the notice of its canonical work. When its link changes (a
resolver verdict, a curator's decision, a re-import), the notice is recomputed in the same
transaction from the receipts and events already stored: no source is asked here. A linked work
no source was ever asked about is queued for a refresh once the change commits.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from datetime import datetime
from typing import Any, cast

from django.db import connection
from django.db.models import Model, QuerySet
from django.utils import timezone

from curation import notice_events as ev
from curation.bulk_sql import encode_document, insert_rows, update_rows
from curation.history import event_model
from curation.models import Observation, StandingNotice
from curation.record.fragments import measured_notice, missing_notice_reason, unavailable_notice
from curation.record_versions import records_bumped_first
from curation.states import Origin

from ..models import NoticeEvent, ReceiptOutcome, SourceReceipt
from .refresh_jobs import FIRST_CHECK_REASON, refreshes_queue

log = logging.getLogger(__name__)

_NOTICE_FIELDS = ("state", "reason", "observation_text", "events", "source_receipts")
_CHUNK = 1000  # observations per statement, far below PostgreSQL's 65,535 parameters


def notice_values_by_work(work_ids: Collection[int | None]) -> dict[int, dict[str, Any]]:
    """Return the v1 notice fields for observations of each work.

    Two statements for any number of works: each source's latest answered receipt (a failed
    query leaves the earlier answer standing), and the events still reported and not dismissed.
    """
    ids = sorted({w for w in work_ids if w is not None})
    receipts: dict[int, list[tuple[str, datetime]]] = defaultdict(list)
    events: dict[int, list[NoticeEvent]] = defaultdict(list)
    if ids:
        answered = (
            SourceReceipt.objects.filter(work_id__any=ids, outcome=ReceiptOutcome.ANSWERED)
            .order_by("work_id", "source", "-observed_at")
            .distinct("work_id", "source")
            .values_list("work_id", "source", "observed_at")
        )
        for work_id, source, observed_at in answered:
            receipts[work_id].append((source, observed_at))
        public = NoticeEvent.objects.filter(work_id__any=ids, still_reported=True, dismissed=False)
        for event in public:
            events[event.work_id].append(event)
    return {
        w: measured_notice(receipts[w], sorted((e.to_v1() for e in events[w]), key=ev.v1_sort_key))
        for w in ids
    }


def _computed_notice(
    observation: Observation, by_work: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    """Return the notice the observation's link gives it (the record builder's rule when no
    notice is stored: an arXiv paper is a canonical link too)."""
    if observation.cited_work_id is not None:
        return by_work[observation.cited_work_id]
    return unavailable_notice(missing_notice_reason(linked=observation.cited_paper_id is not None))


def _differs(notice: StandingNotice, values: dict[str, Any]) -> bool:
    return notice.origin != Origin.COMPUTED or any(
        getattr(notice, name) != values[name] for name in _NOTICE_FIELDS
    )


def _substantive(notice: StandingNotice | None, values: dict[str, Any]) -> bool:
    """Return whether the state or events change; receipt times alone do not (SPEC §1)."""
    if notice is None:
        return True
    return (notice.state, notice.reason, notice.events) != (
        values["state"],
        values["reason"],
        values["events"],
    )


def store_computed_notices(
    observations: Iterable[Observation], now: datetime, *, bump_revision: bool
) -> tuple[int, int]:
    """Store each observation's computed notice; return (substantively changed, seen).

    Observations must come locked, with `standing_notice` selected. Only notices that differ
    are written, each table in one statement. With `bump_revision`, an observation whose notice
    changed substantively gets a new revision and `changed_at` (a caller that changed the link
    has bumped them already, for the same change).
    """
    observations = list(observations)
    by_work = notice_values_by_work([o.cited_work_id for o in observations])
    created: list[dict[str, Any]] = []
    updated: list[StandingNotice] = []
    substantive: list[Observation] = []
    for observation in observations:
        values = _computed_notice(observation, by_work)
        notice: StandingNotice | None = getattr(observation, "standing_notice", None)
        if _substantive(notice, values):
            substantive.append(observation)
        if notice is None:
            # A row, not a model instance: a chunk makes hundreds, and nothing reads them back.
            created.append(
                {"observation_id": observation.pk, "origin": Origin.COMPUTED.value,
                 "refreshed_at": now, **values}
            )  # fmt: skip
        elif _differs(notice, values):
            for name in _NOTICE_FIELDS:
                setattr(notice, name, values[name])
            notice.origin, notice.refreshed_at = Origin.COMPUTED, now
            updated.append(notice)
    # One statement per table, the rows as one JSON parameter (curation.bulk_sql).
    insert_rows(StandingNotice, created)
    update_rows(StandingNotice, updated, [*_NOTICE_FIELDS, "origin", "refreshed_at"])
    if substantive and bump_revision:
        for observation in substantive:
            observation.revision += 1
            observation.changed_at = now
        update_rows(Observation, substantive, ["revision", "changed_at"])
    return len(substantive), len(observations)


# `store_computed_notices` for every observation citing some works, in SQL: the same rules
# (write a notice only where it differs or is not citerec's yet; a new revision only where the
# state, reason or events change), the works' values joined to their observations in the
# database, so no observation or notice is loaded (a refresh batch changes thousands).
_VALUES = (
    "jsonb_to_recordset(%(values)s::jsonb) AS v(work_id bigint, state text, reason text, "
    "observation_text text, events jsonb, source_receipts jsonb)"
)
_CITING = f"curation_observation o JOIN {_VALUES} ON v.work_id = o.cited_work_id"
# The observations whose notice is written (new, not citerec's yet, or different), with their
# records and whether the change is substantive (a new revision).
_WRITTEN_SQL = f"""
SELECT o.id, o.cited_work_id, o.paper_id, o.cited_paper_id,
       n.observation_id IS NULL
       OR (n.state, n.reason, n.events) IS DISTINCT FROM (v.state, v.reason, v.events)
  FROM {_CITING}
  LEFT JOIN curation_standingnotice n ON n.observation_id = o.id
 WHERE n.observation_id IS NULL OR n.origin <> %(computed)s
    OR (n.state, n.reason, n.observation_text, n.events, n.source_receipts)
       IS DISTINCT FROM (v.state, v.reason, v.observation_text, v.events, v.source_receipts)
"""
_UPDATE_SQL = f"""
UPDATE curation_standingnotice n
   SET state = v.state, reason = v.reason, observation_text = v.observation_text,
       events = v.events, source_receipts = v.source_receipts,
       origin = %(computed)s, refreshed_at = %(now)s
  FROM {_CITING}
 WHERE n.observation_id = o.id
   AND (n.origin <> %(computed)s
        OR (n.state, n.reason, n.observation_text, n.events, n.source_receipts)
           IS DISTINCT FROM (v.state, v.reason, v.observation_text, v.events, v.source_receipts))
"""
_INSERT_SQL = f"""
INSERT INTO curation_standingnotice
       (observation_id, state, reason, observation_text, events, source_receipts, origin,
        refreshed_at)
SELECT o.id, v.state, v.reason, v.observation_text, v.events, v.source_receipts, %(computed)s,
       %(now)s
  FROM {_CITING}
 WHERE NOT EXISTS (SELECT 1 FROM curation_standingnotice n WHERE n.observation_id = o.id)
"""


def store_work_notices(
    work_ids: Collection[int], now: datetime
) -> tuple[Counter[int], Counter[int]]:
    """Store the computed notice of every observation citing these works (retired ones too)
    and give a new revision to those whose notice changed substantively; return, by work,
    how many changed substantively and how many were seen. Inside a transaction."""
    ids = sorted(set(work_ids))
    if not ids:
        return Counter(), Counter()
    values = notice_values_by_work(ids)
    params: dict[str, Any] = {
        "values": encode_document([{"work_id": w, **values[w]} for w in ids]),
        "computed": Origin.COMPUTED.value,
        "now": now,
    }
    with connection.cursor() as cursor:
        # Locked in primary-key order, as `locked_with_notices` locks: no deadlock with a
        # resolution chunk or another batch holding some of the same observations.
        cursor.execute(
            "SELECT cited_work_id FROM curation_observation WHERE cited_work_id = ANY(%s) "
            "ORDER BY id FOR UPDATE",
            [ids],
        )
        seen = Counter(work_id for (work_id,) in cursor.fetchall())
        cursor.execute(_WRITTEN_SQL, params)
        written = cursor.fetchall()
        substantive = [(pk, work_id) for pk, work_id, _, _, bumped in written if bumped]
        records_bumped_first(paper for row in written for paper in row[2:4])
        cursor.execute(_UPDATE_SQL, params)
        cursor.execute(_INSERT_SQL, params)
        if substantive:
            cursor.execute(
                "UPDATE curation_observation SET revision = revision + 1, changed_at = %s "
                "WHERE id = ANY(%s)",
                [now, [observation_id for observation_id, _ in substantive]],
            )
    return Counter(work_id for _, work_id in substantive), seen


def locked_with_notices(observations: QuerySet[Observation]) -> QuerySet[Observation]:
    """Return the observations locked in primary-key order (no deadlock), notices selected."""
    return (
        observations.select_related("standing_notice", "resolution")
        .select_for_update(of=("self",))
        .order_by("pk")
    )


# What recomputing a notice reads of an observation: its text, parse and identifiers are many
# times larger and not needed.
_NOTICE_INPUTS = ("cited_work", "revision", "changed_at")


def locked_for_notices(observations: QuerySet[Observation]) -> QuerySet[Observation]:
    """`locked_with_notices` loading only the observation columns recomputing notices reads
    (the rest deferred: for callers that follow links and do nothing else)."""
    fields = [
        f"{relation}__{field.name}"
        for relation in ("standing_notice", "resolution")
        for field in _related_model(relation)._meta.concrete_fields
    ]
    return locked_with_notices(observations).only(*_NOTICE_INPUTS, *fields)


def _related_model(relation: str) -> type[Model]:
    """Return the model behind one of Observation's one-to-one relations."""
    return cast(type[Model], Observation._meta.get_field(relation).related_model)


def _still_imported(observation: Observation) -> bool:
    """Return whether citerec has not judged the observation yet (SPEC §1): keep the import's."""
    notice = getattr(observation, "standing_notice", None)
    resolution = getattr(observation, "resolution", None)
    return (
        notice is not None
        and notice.origin == Origin.IMPORTED
        and (resolution is None or resolution.origin == Origin.IMPORTED)
    )


def standing_notices_follow_links(
    observation_ids: Iterable[uuid.UUID], *, changed_at: datetime | None = None
) -> int:
    """Recompute the notices of observations whose link changed; return how many changed.

    Call inside the transaction and audit context of the write that changed the links, after
    it bumped their revision (the notice is part of that change). With `changed_at`, only the
    observations the write stamped with that time follow (a batch that left some unchanged).
    An observation still as imported (its resolution and notice both the record's) keeps the
    record's notice. Works nobody has asked about yet are queued for a refresh on commit.
    """
    ids = sorted(set(observation_ids))
    locked: list[Observation] = []
    for start in range(0, len(ids), _CHUNK):
        chunk = Observation.objects.filter(pk__any=ids[start : start + _CHUNK])
        if changed_at is not None:
            chunk = chunk.filter(changed_at=changed_at)
        locked += locked_for_notices(chunk)
    return standing_notices_follow(locked)


def standing_notices_follow(observations: Iterable[Observation]) -> int:
    """standing_notices_follow_links for observations in hand: locked in this transaction, as
    written (their link, resolution and notice current, `locked_with_notices`)."""
    now = timezone.now()
    followed = [o for o in observations if not _still_imported(o)]
    changed = 0
    for start in range(0, len(followed), _CHUNK):
        part = followed[start : start + _CHUNK]
        changed += store_computed_notices(part, now, bump_revision=False)[0]
    _refresh_never_asked([o.cited_work_id for o in followed if o.cited_work_id is not None])
    return changed


def _refresh_never_asked(work_ids: list[int]) -> None:
    """Queue a refresh, after commit, of each work that has no receipt at all yet."""
    wanted = set(work_ids)
    if not wanted:
        return
    known = set(
        SourceReceipt.objects.filter(work_id__any=sorted(wanted))
        .values_list("work_id", flat=True)
        .distinct()
    )
    # Robust: the links stand whether or not the broker takes the job (the sweep catches up).
    refreshes_queue(sorted(wanted - known), FIRST_CHECK_REASON, robust=True)


def standing_notice_revert(observation: Observation, event: Any) -> None:
    """Restore the notice an observation had at one of its history events, then follow its link.

    `event` is the observation's history event being restored. The notice of that version is
    the one written in the same change, else the last one before it. Restored as imported, it
    stays as the record had it (SPEC §1); otherwise it is recomputed for the restored link.
    """
    versions = event_model("StandingNotice").objects.filter(pgh_obj_id=observation.pk)
    then = (
        versions.filter(pgh_context_id=event.pgh_context_id).order_by("-pgh_id").first()
        or versions.filter(pgh_created_at__lt=event.pgh_created_at).order_by("-pgh_id").first()
    )
    if then is not None and then.pgh_label != "delete":
        values = {name: getattr(then, name) for name in (*_NOTICE_FIELDS, "origin", "refreshed_at")}
        StandingNotice.objects.update_or_create(observation=observation, defaults=values)
    standing_notices_follow_links([observation.pk])
