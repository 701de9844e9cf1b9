"""Import the Retraction Watch CSV: one upsert of its rows, superseding rules, changed DOIs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from psycopg.types.json import Jsonb

from curation import notice_events as ev
from curation.audit import Actor, audited

from ..models import (
    NoticeSource,
    RetractionWatchImport,
    RetractionWatchRecord,
)
from ..parsers import retraction_watch as rw
from ..parsers.retraction_watch import RetractionWatchRow
from ..selectors import cited_works_for_dois
from .refresh import BatchRefresh, refresh_in_batches

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


def retraction_watch_follow_up(
    *, changed_dois: set[str], actor: Actor, reason: str
) -> BatchRefresh:
    """Recompute the notices of the cited works whose Retraction Watch rows an import changed
    (that source only, in batches): what `import_retraction_watch` does after the rows."""
    works = cited_works_for_dois(changed_dois)
    return refresh_in_batches(
        work_ids=works, actor=actor, reason=reason, sources=(NoticeSource.RETRACTION_WATCH,)
    )
