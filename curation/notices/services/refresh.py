"""Refresh a cited work's notices: ask the sources, store what they said, recompute notices.

The standing notice of an observation (v1 `standing_notice`) is computed from the stored
receipts and events of its canonical work, exactly as SPEC §4 says; `refresh` asks the sources
first (outside any transaction: HTTP must not hold row locks) and then stores what they said.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from curation.audit import Actor, audited
from curation.models import CitedWork, Observation

from .. import events as ev
from ..follow import locked_with_notices, notice_values_by_work, store_computed_notices
from ..models import (
    NoticeEvent,
    NoticeReview,
    NoticeSource,
    ReviewStatus,
    SourceReceipt,
)
from ..notify import notify_reviewers
from ..selectors import observations_of, work_keys
from ..sources import CrossrefLike, SourceAnswer, ask_sources

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


@transaction.atomic
def store_answers(
    *, work: CitedWork, answers: Sequence[SourceAnswer], actor: Actor, reason: str
) -> RefreshOutcome:
    """Store the sources' answers about a work and recompute the notices that cite it."""
    outcome = RefreshOutcome(work_id=work.pk)
    now = timezone.now()
    with audited(actor, reason):
        # One refresh of a work at a time: a beat run and a manual one must not interleave.
        CitedWork.objects.select_for_update().filter(pk=work.pk).first()
        touched: list[NoticeEvent] = []
        for answer in answers:
            SourceReceipt.objects.create(
                work=work,
                source=answer.source,
                observed_at=answer.observed_at,
                outcome=answer.outcome,
                query=answer.query[:512],
                events_found=len(answer.events),
                detail=answer.detail,
            )
            outcome.receipts[answer.source] = answer.outcome
            if answer.answered:
                touched += _sync_events(work, answer, now, outcome)
        opened = _open_reviews(touched, now)
        outcome.new_or_changed = len(touched)
        _recompute(observations_of(work), now, outcome)
    if opened:
        ids = [review.pk for review in opened]
        transaction.on_commit(lambda: notify_reviewers(ids))
    return outcome


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


def _sync_events(
    work: CitedWork, answer: SourceAnswer, now: datetime, outcome: RefreshOutcome
) -> list[NoticeEvent]:
    """Store one source's answer; return the events that are new or changed."""
    stored = {e.identity: e for e in NoticeEvent.objects.filter(work=work, source=answer.source)}
    touched: list[NoticeEvent] = []
    seen: set[str] = set()
    for reported in answer.events:
        identity = _identity(reported)
        if identity in seen:
            continue
        seen.add(identity)
        values = _event_values(reported, identity in answer.superseded)
        event = stored.get(identity)
        if event is None:
            touched.append(
                NoticeEvent.objects.create(
                    work=work,
                    source=answer.source,
                    identity=identity,
                    first_seen_at=now,
                    last_seen_at=now,
                    **values,
                )
            )
            continue
        changed = [name for name in _CONTENT_FIELDS if getattr(event, name) != values[name]]
        reappeared = not event.still_reported
        for name, value in values.items():
            setattr(event, name, value)
        event.last_seen_at, event.still_reported = now, True
        event.save()
        if changed or reappeared:
            touched.append(event)
    for identity, event in stored.items():
        if identity not in seen and event.still_reported:
            # The source answered without it: it no longer reports this notice.
            event.still_reported = False
            event.save(update_fields=["still_reported"])
            outcome.gone += 1
    return touched


def _open_reviews(events: Iterable[NoticeEvent], now: datetime) -> list[NoticeReview]:
    """Open (or reopen) the review of every new or changed event."""
    opened = []
    for event in events:
        review = NoticeReview.objects.filter(event=event).first()
        if review is None:
            review = NoticeReview(event=event, opened_at=now, severity=event.severity)
        else:
            review.status, review.severity, review.opened_at = ReviewStatus.NEW, event.severity, now
            review.reviewer, review.note, review.decided_at = None, "", None
            review.revision += 1  # a decision made on the old content is now stale
        review.save()
        if event.dismissed:
            # The dismissal judged the old content; what the source says now is public again.
            event.dismissed = False
            event.save(update_fields=["dismissed"])
        opened.append(review)
    return opened


# --- standing notices ------------------------------------------------------------------------


def notice_values(work: CitedWork | None) -> dict[str, Any]:
    """Return the v1 standing-notice fields for an observation of this work (SPEC §4)."""
    work_id = work.pk if work is not None else None
    return notice_values_by_work([work_id])[work_id]


def _recompute(
    observations: QuerySet[Observation], now: datetime, outcome: RefreshOutcome | None = None
) -> None:
    """Store the computed notice of each observation; bump it only on substantive change."""
    changed, seen = store_computed_notices(
        locked_with_notices(observations), now, bump_revision=True
    )
    if outcome is not None:
        outcome.notices_changed += changed
        outcome.notices_refreshed += seen


@transaction.atomic
def recompute_notices(*, observations: Iterable[Observation], actor: Actor, reason: str) -> None:
    """Recompute the notices of observations whose canonical link changed (no source query)."""
    with audited(actor, reason):
        ids = [observation.pk for observation in observations]
        _recompute(Observation.objects.filter(pk__in=ids), timezone.now())
