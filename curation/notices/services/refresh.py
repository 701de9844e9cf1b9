"""Refresh a cited work's notices: ask the sources, store what they said, recompute notices.

The standing notice of an observation (v1 `standing_notice`) is computed from the stored
receipts and events of its canonical work, exactly as SPEC §4 says; `refresh` asks the sources
first (outside any transaction: HTTP must not hold row locks) and then stores what they said.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from curation import notice_events as ev
from curation.audit import Actor, audited
from curation.bulk_sql import insert_rows
from curation.models import CitedWork, Observation

from ..models import (
    NoticeEvent,
    NoticeReview,
    NoticeSource,
    ReviewStatus,
    SourceReceipt,
)
from ..notify import notify_reviewers
from ..selectors import retraction_watch_lookup, work_keys, works_keys
from ..sources import CrossrefLike, SourceAnswer, ask_sources
from .follow import (
    locked_with_notices,
    store_computed_notices,
    store_work_notices,
)
from .refresh_jobs import REFRESH_BATCH, refreshes_queue

log = logging.getLogger(__name__)

ALL_SOURCES: tuple[str, ...] = tuple(NoticeSource.values)

# What makes an event "changed" (and reopens its review); `superseded` only records that a
# later notice replaced the paper's state, which is not a change of this notice.
_CONTENT_FIELDS = (
    "type",
    "work_doi",
    "notice_doi",
    "notice_url",
    "date",
    "reasons",
    "source_record_id",
)
# What a source's report sets on a stored event (`_event_values`).
_EVENT_FIELDS = (*_CONTENT_FIELDS, "severity", "superseded")
# What reopening a review resets (`_open_reviews`).
_REOPENED_FIELDS = ("status", "severity", "opened_at", "reviewer", "note", "decided_at", "revision")


@dataclass
class RefreshOutcome:
    """What one refresh of a work found and changed."""

    work_id: int
    receipts: dict[str, str] = field(default_factory=dict)
    new_or_changed: int = 0
    gone: int = 0
    notices_changed: int = 0
    notices_refreshed: int = 0


# --- refresh ---------------------------------------------------------------------------------


def refresh(
    *,
    work: CitedWork,
    actor: Actor,
    reason: str,
    sources: Iterable[str] = ALL_SOURCES,
    client: CrossrefLike | None = None,
) -> RefreshOutcome:
    """Ask the sources about a work, store receipts and events, recompute its notices."""
    answers = ask_sources(work_keys(work), sources, client)
    return store_answers(work=work, answers=answers, actor=actor, reason=reason)


@dataclass
class BatchRefresh:
    """What a refresh of several works did: one outcome per work stored, and the works whose
    sources could not be asked (logged; nothing stored for them)."""

    outcomes: list[RefreshOutcome]
    failed: list[int]
    left: list[int] = field(default_factory=list)  # not asked: stopped by one of `stop_on`


def refresh_many(
    *,
    works: Sequence[CitedWork],
    actor: Actor,
    reason: str,
    sources: Iterable[str] = ALL_SOURCES,
    client: CrossrefLike | None = None,
    stop_on: tuple[type[BaseException], ...] = (),
) -> BatchRefresh:
    """Refresh several works as one: each work's sources asked (the local ones read once for
    all), then every answer stored and every notice recomputed in one transaction.

    What each work ends with is what `refresh` of each alone would leave; a batch writes each
    table in a few statements and bumps a record shared by many of the works once, not once
    per work. A work whose sources raise is logged and left out; the others are stored. An
    exception of `stop_on` (a job's soft time limit) stops the asking: the works asked are
    stored, the rest are `left` and queued again at once (a new job, with its own time limit),
    unless not one work was asked (no loop: the scheduled sweep asks later).
    """
    sources = tuple(sources)
    keys = works_keys(works)
    local = retraction_watch_lookup(d for k in keys.values() for d in k.dois)
    answers: dict[int, list[SourceAnswer]] = {}
    failed: list[int] = []
    left: list[int] = []
    for index, work in enumerate(works):
        try:
            answers[work.pk] = ask_sources(keys[work.pk], sources, client, local)
        except stop_on as exc:
            left = [w.pk for w in works[index:]]
            log.warning("asking the notice sources stopped, %s works left: %r", len(left), exc)
            break
        except Exception:  # noqa: BLE001 - one work never stops the others
            log.exception("asking the notice sources about work %s failed", work.pk)
            failed.append(work.pk)
    asked = [work for work in works if work.pk in answers]
    outcomes = _store(asked, answers, actor=actor, reason=reason) if asked else []
    if left and len(left) < len(works):
        refreshes_queue(left, reason)
    return BatchRefresh(outcomes=outcomes, failed=failed, left=left)


def refresh_in_batches(
    *,
    work_ids: Iterable[int],
    actor: Actor,
    reason: str,
    sources: Iterable[str] = ALL_SOURCES,
    batch: int = REFRESH_BATCH,
) -> BatchRefresh:
    """`refresh_many` over any number of works, `batch` works per transaction (the follow-up of
    an import that changed what a source says about many works)."""
    ids, sources = sorted(set(work_ids)), tuple(sources)
    total = BatchRefresh(outcomes=[], failed=[])
    for start in range(0, len(ids), batch):
        works = list(CitedWork.objects.filter(pk__any=ids[start : start + batch]).order_by("pk"))
        done = refresh_many(works=works, actor=actor, reason=reason, sources=sources)
        total.outcomes += done.outcomes
        total.failed += done.failed
    return total


def store_answers(
    *, work: CitedWork, answers: Sequence[SourceAnswer], actor: Actor, reason: str
) -> RefreshOutcome:
    """Store the sources' answers about a work and recompute the notices that cite it."""
    return _store([work], {work.pk: list(answers)}, actor=actor, reason=reason)[0]


@transaction.atomic
def _store(
    works: Sequence[CitedWork],
    answers: Mapping[int, Sequence[SourceAnswer]],
    *,
    actor: Actor,
    reason: str,
) -> list[RefreshOutcome]:
    """Store the answers about each work and recompute the notices citing them (a transaction)."""
    works = sorted(works, key=lambda w: w.pk)
    ids = [work.pk for work in works]
    outcomes = {work_id: RefreshOutcome(work_id=work_id) for work_id in ids}
    now = timezone.now()
    with audited(actor, reason):
        # One refresh of a work at a time: a beat run and a manual one must not interleave.
        # Locked in id order, so two batches sharing works cannot deadlock; NO KEY UPDATE, so a
        # resolver chunk linking a reference to one of these works (its foreign key check at
        # commit takes KEY SHARE) does not wait for the refresh.
        works_locked = CitedWork.objects.select_for_update(no_key=True).filter(pk__any=ids)
        list(works_locked.order_by("pk").values("pk"))
        # Rows, not model instances: a batch stores hundreds, and nothing reads them back.
        insert_rows(
            SourceReceipt,
            [
                {
                    "work_id": work_id,
                    "source": answer.source.value,
                    "observed_at": answer.observed_at,
                    "outcome": answer.outcome.value,
                    "query": answer.query[:512],
                    "events_found": len(answer.events),
                    "detail": answer.detail,
                }
                for work_id in ids
                for answer in answers[work_id]
            ],
        )
        stored = _stored_events(ids, answers)
        sync = _EventWrites(now)
        for work_id in ids:
            outcome = outcomes[work_id]
            for answer in answers[work_id]:
                outcome.receipts[answer.source] = answer.outcome
                if answer.answered:
                    found = stored.get((work_id, answer.source), {})
                    outcome.new_or_changed += sync.answer(work_id, answer, found, outcome)
        touched = sync.write()
        opened = _open_reviews(touched, now)
        _recompute(ids, now, outcomes)
    if opened:
        review_ids = [review.pk for review in opened]
        transaction.on_commit(lambda: notify_reviewers(review_ids))
    return [outcomes[work.pk] for work in works]


def _stored_events(
    ids: Sequence[int], answers: Mapping[int, Sequence[SourceAnswer]]
) -> dict[tuple[int, str], dict[str, NoticeEvent]]:
    """Return the stored events of each (work, answering source), by identity (one query)."""
    wanted = {(work_id, a.source) for work_id in ids for a in answers[work_id] if a.answered}
    stored: dict[tuple[int, str], dict[str, NoticeEvent]] = {}
    if wanted:
        sources = sorted({source for _, source in wanted})
        for event in NoticeEvent.objects.filter(work_id__any=ids, source__in=sources):
            if (event.work_id, event.source) in wanted:
                stored.setdefault((event.work_id, event.source), {})[event.identity] = event
    return stored


def _identity(event: ev.ReportedEvent) -> str:
    """Return what names one notice within (work, source) across refreshes."""
    if event.source == NoticeSource.RETRACTION_WATCH and event.source_record_id:
        return event.source_record_id
    if event.source == NoticeSource.ARXIV:
        return event.type.value  # one withdrawal per paper; a new version changes the event
    if event.notice_doi:
        return event.notice_doi
    day = event.date.isoformat() if event.date else ""
    return f"{event.type.value}|{day}|{event.source_record_id or ''}"


def _event_values(event: ev.ReportedEvent, superseded: bool) -> dict[str, Any]:
    return {
        "type": event.type.value,
        "severity": ev.severity_rank(event.type),
        "work_doi": event.work_doi,
        "notice_doi": event.notice_doi,
        "notice_url": event.notice_url,
        "date": event.date,
        "reasons": list(event.reasons),
        "source_record_id": event.source_record_id,
        "superseded": superseded,
    }


class _EventWrites:
    """The event writes of one batch, collected answer by answer and written once (`write`)."""

    def __init__(self, now: datetime) -> None:
        self.now = now
        self.created: list[NoticeEvent] = []
        self.seen_again: list[NoticeEvent] = []
        self.changed: list[NoticeEvent] = []
        self.gone: list[NoticeEvent] = []

    def answer(
        self,
        work_id: int,
        answer: SourceAnswer,
        stored: dict[str, NoticeEvent],
        outcome: RefreshOutcome,
    ) -> int:
        """Take one source's answer about a work; return how many events are new or changed."""
        seen: set[str] = set()
        touched = 0
        for reported in answer.events:
            identity = _identity(reported)
            if identity in seen:
                continue
            seen.add(identity)
            values = _event_values(reported, identity in answer.superseded)
            event = stored.get(identity)
            if event is None:
                self.created.append(
                    NoticeEvent(
                        work_id=work_id,
                        source=answer.source,
                        identity=identity,
                        first_seen_at=self.now,
                        last_seen_at=self.now,
                        **values,
                    )
                )
                touched += 1
                continue
            changed = [name for name in _CONTENT_FIELDS if getattr(event, name) != values[name]]
            reappeared = not event.still_reported
            for name, value in values.items():
                setattr(event, name, value)
            event.last_seen_at, event.still_reported = self.now, True
            self.seen_again.append(event)
            if changed or reappeared:
                self.changed.append(event)
                touched += 1
        for identity, event in stored.items():
            if identity not in seen and event.still_reported:
                # The source answered without it: it no longer reports this notice.
                event.still_reported = False
                self.gone.append(event)
                outcome.gone += 1
        return touched

    def write(self) -> list[NoticeEvent]:
        """Write the events (a statement per kind of write); return the new and changed ones."""
        NoticeEvent.objects.bulk_create(self.created)
        if self.seen_again:
            fields = [*_EVENT_FIELDS, "last_seen_at", "still_reported"]
            NoticeEvent.objects.bulk_update(self.seen_again, fields)
        if self.gone:
            NoticeEvent.objects.bulk_update(self.gone, ["still_reported"])
        return [*self.created, *self.changed]


def _open_reviews(events: Sequence[NoticeEvent], now: datetime) -> list[NoticeReview]:
    """Open (or reopen) the review of every new or changed event."""
    existing = {r.event_id: r for r in NoticeReview.objects.filter(event__in=events)}
    created: list[NoticeReview] = []
    reopened: list[NoticeReview] = []
    undismissed: list[NoticeEvent] = []
    for event in events:
        review = existing.get(event.pk)
        if review is None:
            created.append(NoticeReview(event=event, opened_at=now, severity=event.severity))
        else:
            review.status, review.severity, review.opened_at = ReviewStatus.NEW, event.severity, now
            review.reviewer, review.note, review.decided_at = None, "", None
            review.revision += 1  # a decision made on the old content is now stale
            reopened.append(review)
        if event.dismissed:
            # The dismissal judged the old content; what the source says now is public again.
            event.dismissed = False
            undismissed.append(event)
    NoticeReview.objects.bulk_create(created)
    if reopened:
        NoticeReview.objects.bulk_update(reopened, _REOPENED_FIELDS)
    if undismissed:
        NoticeEvent.objects.bulk_update(undismissed, ["dismissed"])
    by_event = {r.event_id: r for r in [*created, *reopened]}
    return [by_event[event.pk] for event in events]


# --- standing notices ------------------------------------------------------------------------


def _recompute(
    work_ids: Sequence[int], now: datetime, outcomes: Mapping[int, RefreshOutcome]
) -> None:
    """Store the computed notice of each observation of these works; bump it only on
    substantive change; count both in each work's outcome."""
    changed, seen = store_work_notices(work_ids, now)
    for work_id, outcome in outcomes.items():
        outcome.notices_changed += changed[work_id]
        outcome.notices_refreshed += seen[work_id]


@transaction.atomic
def recompute_notices(*, observations: Iterable[Observation], actor: Actor, reason: str) -> None:
    """Recompute the notices of observations whose canonical link changed (no source query)."""
    with audited(actor, reason):
        ids = [observation.pk for observation in observations]
        observations = locked_with_notices(Observation.objects.filter(pk__in=ids))
        store_computed_notices(observations, timezone.now(), bump_revision=True)
