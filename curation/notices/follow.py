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
from importlib import import_module
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from curation.bulk_sql import insert_rows, update_rows
from curation.history import event_model
from curation.models import Observation, StandingNotice
from curation.record.builder import no_event_sentence
from curation.record.timestamps import format_micro_offset
from curation.states import NoticeReason, NoticeState, Origin

from . import events as ev
from .models import NoticeEvent, ReceiptOutcome, SourceReceipt

log = logging.getLogger(__name__)

_NOTICE_FIELDS = ("state", "reason", "observation_text", "events", "source_receipts")
_CHUNK = 1000  # observations per statement, far below PostgreSQL's 65,535 parameters


def unavailable(reason: NoticeReason) -> dict[str, Any]:
    """Return the v1 notice fields of an unavailable notice."""
    return {
        "state": NoticeState.UNAVAILABLE.value,
        "reason": reason.value,
        "events": [],
        "source_receipts": [],
        "observation_text": None,
    }


def _measured(receipts: list[SourceReceipt], events: list[NoticeEvent]) -> dict[str, Any]:
    if not receipts:
        return unavailable(NoticeReason.NO_SOURCE_ANSWERED)
    shown = [
        {"observed_at": format_micro_offset(r.observed_at), "source": r.source}
        for r in sorted(receipts, key=lambda r: r.source)
    ]
    latest = max(str(r["observed_at"]) for r in shown)  # one fixed-width format: text order
    v1_events = sorted((e.to_v1() for e in events), key=ev.v1_sort_key)
    return {
        "state": NoticeState.MEASURED.value,
        "reason": None,
        "events": v1_events,
        "source_receipts": shown,
        "observation_text": None if v1_events else no_event_sentence(latest),
    }


def notice_values_by_work(work_ids: Collection[int | None]) -> dict[int | None, dict[str, Any]]:
    """Return the v1 notice fields for observations of each work (None: no canonical link).

    Two statements for any number of works: each source's latest answered receipt (a failed
    query leaves the earlier answer standing), and the events still reported and not dismissed.
    """
    ids = sorted({w for w in work_ids if w is not None})
    receipts: dict[int, list[SourceReceipt]] = defaultdict(list)
    events: dict[int, list[NoticeEvent]] = defaultdict(list)
    if ids:
        answered = (
            SourceReceipt.objects.filter(work_id__any=ids, outcome=ReceiptOutcome.ANSWERED)
            .order_by("work_id", "source", "-observed_at")
            .distinct("work_id", "source")
        )
        for receipt in answered:
            receipts[receipt.work_id].append(receipt)
        public = NoticeEvent.objects.filter(work_id__any=ids, still_reported=True, dismissed=False)
        for event in public:
            events[event.work_id].append(event)
    values: dict[int | None, dict[str, Any]] = {
        None: unavailable(NoticeReason.CANONICAL_WORK_LINK_UNAVAILABLE)
    }
    values.update((w, _measured(receipts[w], events[w])) for w in ids)
    return values


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
    """Store each observation's computed notice; return (substantively changed, seen)."""
    changed, seen = store_computed_notices_by_work(observations, now, bump_revision=bump_revision)
    return sum(changed.values()), sum(seen.values())


def store_computed_notices_by_work(
    observations: Iterable[Observation], now: datetime, *, bump_revision: bool
) -> tuple[dict[int | None, int], dict[int | None, int]]:
    """Store each observation's computed notice; return, by cited work, how many notices
    changed substantively and how many were seen.

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
        values = by_work[observation.cited_work_id]
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
    return Counter(o.cited_work_id for o in substantive), Counter(
        o.cited_work_id for o in observations
    )


def locked_with_notices(observations: QuerySet[Observation]) -> QuerySet[Observation]:
    """Return the observations locked in primary-key order (no deadlock), notices selected."""
    return (
        observations.select_related("standing_notice", "resolution")
        .select_for_update(of=("self",))
        .order_by("pk")
    )


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
        locked += locked_with_notices(chunk)
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
    never = sorted(wanted - known)
    if never:
        transaction.on_commit(lambda: _queue_refreshes(never), robust=True)


REFRESH_BATCH = 100  # works per queued job: one message per resolved chunk, not one per work


def _queue_refreshes(work_ids: list[int]) -> None:
    # Looked up when needed: the tasks import the services, which import this module.
    refresh_works = import_module("curation.notices.tasks").refresh_works
    for start in range(0, len(work_ids), REFRESH_BATCH):
        refresh_works.delay(
            work_ids[start : start + REFRESH_BATCH],
            reason="first notice check of a newly linked work",
        )


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
