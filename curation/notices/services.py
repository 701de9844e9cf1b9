"""All writes to notice data, each in one transaction inside an audit context.

The standing notice of an observation (v1 `standing_notice`) is computed here from the stored
receipts and events of its canonical work, exactly as SPEC §4 says; `refresh` asks the sources
first (outside any transaction: HTTP must not hold row locks) and then stores what they said.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone
from psycopg.types.json import Jsonb

from curation.audit import Actor, audited
from curation.models import CitedWork, Observation

from . import events as ev
from . import retraction_watch as rw
from .follow import locked_with_notices, notice_values_by_work, store_computed_notices
from .models import (
    NoticeEvent,
    NoticeReview,
    NoticeSource,
    RetractionWatchImport,
    RetractionWatchRecord,
    ReviewStatus,
    SourceReceipt,
)
from .notify import notify_reviewers
from .retraction_watch import RetractionWatchRow
from .reviews import MissingNote, StaleReview, review_decide
from .selectors import observations_of, work_keys
from .sources import CrossrefLike, SourceAnswer, ask_sources

ALL_SOURCES: tuple[str, ...] = tuple(NoticeSource.values)

__all__ = ["MissingNote", "StaleReview", "review_decide"]  # reviews live in .reviews

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


def _identity(event: ev.NoticeEvent) -> str:
    """Return what names one notice within (work, source) across refreshes."""
    if event.source == NoticeSource.RETRACTION_WATCH and event.source_record_id:
        return event.source_record_id
    if event.source == NoticeSource.ARXIV:
        return event.type.value  # one withdrawal per paper; a new version changes the event
    if event.notice_doi:
        return event.notice_doi
    day = event.date.isoformat() if event.date else ""
    return f"{event.type.value}|{day}|{event.source_record_id or ''}"


def _event_values(event: ev.NoticeEvent, superseded: bool) -> dict[str, Any]:
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


# --- Retraction Watch import -----------------------------------------------------------------

_RW_FIELDS = (
    "original_doi",
    "original_pubmed_id",
    "notice_doi",
    "notice_pubmed_id",
    "nature",
    "raw_nature",
    "retraction_date",
    "original_date",
    "reasons",
    "title",
    "journal",
    "publisher",
    "superseded",
)
_RW_ERRORS_KEPT = 200


@dataclass(frozen=True, slots=True)
class _StoredNotice:
    """A stored row as the superseding rules read it."""

    record_id: int
    retraction_date: date | None
    nature: ev.EventType
    paper_keys: tuple[str, ...]


@dataclass
class RetractionWatchOutcome:
    """What one import changed, and the DOIs whose notices may now read differently."""

    run: RetractionWatchImport
    changed_dois: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)


def _rw_values(row: RetractionWatchRow, superseded: bool) -> dict[str, Any]:
    return {
        "original_doi": row.original_doi,
        "original_pubmed_id": row.original_pubmed_id,
        "notice_doi": row.notice_doi,
        "notice_pubmed_id": row.notice_pubmed_id,
        "nature": row.nature.value,
        "raw_nature": row.raw_nature[:128],
        "retraction_date": row.retraction_date,
        "original_date": row.original_date,
        "reasons": list(row.reasons),
        "title": row.title,
        "journal": row.journal,
        "publisher": row.publisher,
        "superseded": superseded,
    }


def _superseded_ids(notices: Iterable[rw.Notice]) -> set[int]:
    """Return the record ids a later notice about the same paper has replaced."""
    superseded: set[int] = set()
    for group in rw.group_by_paper(notices):
        state = rw.superseding_state(group)
        if state is None:
            continue
        decider = next(i for i, r in enumerate(state.rows) if r.record_id == state.decided_by)
        superseded.update(r.record_id for r in state.rows[:decider])
    return superseded


def _read_items(
    items: Iterable[RetractionWatchRow | rw.RowError], errors: list[str]
) -> dict[int, RetractionWatchRow]:
    rows: dict[int, RetractionWatchRow] = {}
    for item in items:
        if isinstance(item, rw.RowError):
            errors.append(str(item))
            continue
        earlier = rows.get(item.record_id)
        if earlier is not None:
            errors.append(
                f"line {item.line}: Record ID: {item.record_id} repeats line {earlier.line}; "
                "the later row is kept"
            )
        rows[item.record_id] = item
    return rows


@transaction.atomic
def retraction_watch_import(
    *,
    items: Iterable[RetractionWatchRow | rw.RowError],
    file_name: str,
    actor: Actor,
    reason: str,
) -> RetractionWatchOutcome:
    """Store the rows of a Retraction Watch CSV, idempotent by Record ID; bad rows reported.

    A later row about the same paper supersedes the earlier ones (stored rows included, so a
    partial file still applies the rules to the whole database).
    """
    with audited(actor, reason):
        now = timezone.now()
        run = RetractionWatchImport.objects.create(file_name=file_name[:1000], started_at=now)
        outcome = RetractionWatchOutcome(run=run)
        rows = _read_items(items, outcome.errors)
        stored = {
            values[0]: values[1:]
            for values in RetractionWatchRecord.objects.values_list("record_id", *_RW_FIELDS)
        }
        notices: list[rw.Notice] = [
            _StoredNotice(rid, v[6], ev.EventType(v[4]), rw.paper_keys(v[0], v[1]))
            for rid, v in stored.items()
            if rid not in rows
        ]
        superseded = _superseded_ids([*notices, *rows.values()])
        writes: dict[int, dict[str, Any]] = {}
        for record_id, row in rows.items():
            values = _rw_values(row, record_id in superseded)
            before = stored.get(record_id)
            if before is None:
                run.created += 1
            elif tuple(values[name] for name in _RW_FIELDS) != before:
                run.updated += 1
            else:
                run.unchanged += 1
                continue
            outcome.changed_dois.update(
                d for d in (row.original_doi, before[0] if before else None) if d
            )
            writes[record_id] = values
        _upsert_records(writes, now)
        # Seen again, unchanged: no history row for that (see models._QUIET_FIELDS).
        _set_on_records("last_seen_at", now, [rid for rid in rows if rid not in writes])
        outcome.changed_dois |= _restate_stored(stored, rows, superseded)
        run.rows_read = len(rows) + len(outcome.errors)
        run.error_count = len(outcome.errors)
        run.errors = outcome.errors[:_RW_ERRORS_KEPT]
        run.finished_at = timezone.now()
        run.save()
    return outcome


def _upsert_records(records: dict[int, dict[str, Any]], now: datetime) -> None:
    """Insert new rows and update changed ones: COPY to a temporary table, then one upsert."""
    # COPY skips the ORM's per-value work (70,000 rows x 16 columns); the upsert still runs
    # through Django's cursor, so the history triggers see the audit context.
    if not records:
        return
    table = RetractionWatchRecord._meta.db_table
    columns = ["record_id", *_RW_FIELDS, "first_seen_at", "last_seen_at"]
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE rw_incoming (LIKE {table} INCLUDING DEFAULTS) ON COMMIT DROP"
        )
        with cursor.cursor.copy(f"COPY rw_incoming ({', '.join(columns)}) FROM STDIN") as copy:
            for record_id, values in records.items():
                cells = (Jsonb(v) if n == "reasons" else v for n, v in values.items())
                copy.write_row([record_id, *cells, now, now])
        names = ", ".join(columns)
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in [*_RW_FIELDS, "last_seen_at"])
        cursor.execute(
            f"INSERT INTO {table} ({names}) SELECT {names} FROM rw_incoming "
            f"ON CONFLICT (record_id) DO UPDATE SET {updates}"
        )
        cursor.execute("DROP TABLE rw_incoming")


def _set_on_records(column: str, value: Any, record_ids: list[int]) -> None:
    """Set one column of many rows in one statement (one array parameter, not 70,000)."""
    if record_ids:
        table = RetractionWatchRecord._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET {column} = %s WHERE record_id = ANY(%s)", [value, record_ids]
            )


def _restate_stored(
    stored: dict[int, tuple[Any, ...]], rows: dict[int, RetractionWatchRow], superseded: set[int]
) -> set[str]:
    """Update `superseded` of stored rows the file did not list; return their DOIs."""
    flag = _RW_FIELDS.index("superseded")
    changed: dict[bool, list[int]] = {True: [], False: []}
    dois: set[str] = set()
    for record_id, values in stored.items():
        now_superseded = record_id in superseded
        if record_id not in rows and values[flag] != now_superseded:
            changed[now_superseded].append(record_id)
            if values[0]:
                dois.add(values[0])
    for value, ids in changed.items():
        _set_on_records("superseded", value, ids)
    return dois
