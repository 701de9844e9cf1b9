"""Catalogue imports: the arXiv metadata snapshot (COPY + upsert) and Crossref works.

The rows come checked from curation.resolution.catalogue_rows. Should the database refuse a
batch all the same, the batch is split until the line it refuses is found, and that line alone
is skipped (`_store_apart_from_refused`).
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from multiprocessing.pool import AsyncResult
from pathlib import Path
from typing import Any, TypeVar

import psycopg
from django.db import DataError, IntegrityError, connection, transaction
from django.utils import timezone

from curation.audit import Actor, audited
from curation.limits import current_limits
from curation.resolution.catalogue_files import (
    CROSSREF_COLUMNS,
    Piece,
    PieceRows,
    is_document,
    line_pieces,
    read_piece,
    set_key,
    sources,
)
from curation.resolution.catalogue_rows import (
    LOCATOR_COLUMNS,
    PAPER_COLUMNS,
    BadLine,
    ImportReport,
    crossref_fields,
    file_key,
    load_tables,
    open_input,
    read_snapshot_piece,
    snapshot_pieces,
)
from curation.resolution.models import CrossrefWork, ImportCheckpoint

# Columns an import may change on an existing paper; a change is a history event.
_UPDATED = [c for c in PAPER_COLUMNS if c != "arxiv_id"]

# What the database raises for a value its column refuses; COPY raises psycopg's own errors.
_REFUSED = (DataError, IntegrityError, psycopg.DataError, psycopg.IntegrityError)

_STAGE = "resolution_arxiv_stage"


_STAGE_TYPES = (
    "text", "text", "text", "text", "text", "text", "smallint", "timestamptz", "timestamptz",
    "text", "text", "text", "smallint", "text", "text", "boolean",
)  # fmt: skip

_CREATE_STAGE = (
    f"CREATE TEMP TABLE IF NOT EXISTS {_STAGE} (line bigint, "
    + ", ".join(f"{c} {t}" for c, t in zip(PAPER_COLUMNS, _STAGE_TYPES, strict=True))
    + ", venue_key text, volume text, first_page text, locator_year smallint"
    + ") ON COMMIT DELETE ROWS"
)

# Locators follow the journal-ref: set, changed, or removed with it.
_LOCATORS = f"""
WITH latest AS (
    SELECT DISTINCT ON (arxiv_id) arxiv_id, venue_key, volume, first_page, locator_year
    FROM {_STAGE} ORDER BY arxiv_id, line DESC
), gone AS (
    DELETE FROM resolution_paperlocator l USING latest s, curation_paper p
    WHERE p.arxiv_id = s.arxiv_id AND l.paper_id = p.id AND s.venue_key = ''
)
INSERT INTO resolution_paperlocator (paper_id, venue_key, volume, first_page, year)
SELECT p.id, s.venue_key, s.volume, s.first_page, s.locator_year
FROM latest s JOIN curation_paper p ON p.arxiv_id = s.arxiv_id WHERE s.venue_key <> ''
ON CONFLICT (paper_id) DO UPDATE SET venue_key = EXCLUDED.venue_key, volume = EXCLUDED.volume,
    first_page = EXCLUDED.first_page, year = EXCLUDED.year
WHERE (resolution_paperlocator.venue_key, resolution_paperlocator.volume,
       resolution_paperlocator.first_page, resolution_paperlocator.year)
    IS DISTINCT FROM (EXCLUDED.venue_key, EXCLUDED.volume, EXCLUDED.first_page, EXCLUDED.year)
"""

_UPSERT = f"""
WITH up AS (
    INSERT INTO curation_paper ({", ".join(PAPER_COLUMNS)}, in_catalogue, snapshot_observed_at)
    SELECT DISTINCT ON (arxiv_id) {", ".join(PAPER_COLUMNS)}, true, %s FROM {_STAGE}
    ORDER BY arxiv_id, line DESC
    ON CONFLICT (arxiv_id) DO UPDATE SET
        {", ".join(f"{c} = EXCLUDED.{c}" for c in _UPDATED)},
        in_catalogue = true, snapshot_observed_at = EXCLUDED.snapshot_observed_at
    WHERE ({", ".join(f"curation_paper.{c}" for c in _UPDATED)}, curation_paper.in_catalogue)
        IS DISTINCT FROM ({", ".join(f"EXCLUDED.{c}" for c in _UPDATED)}, true)
    RETURNING (xmax = 0) AS inserted
)
SELECT count(*) FILTER (WHERE inserted), count(*) FILTER (WHERE NOT inserted) FROM up
"""


def import_arxiv_snapshot(
    *,
    path: Path,
    actor: Actor,
    reason: str,
    batch_size: int = 20_000,
    progress: Callable[[int], None] | None = None,
    restart: bool = False,
    processes: int = 1,
) -> ImportReport:
    """Load an arXiv snapshot into the catalogue, in batches, resuming after the last one done.

    Worker processes parse pieces of `batch_size` lines (catalogue_rows.read_snapshot_piece)
    while this process stores the previous ones. Each batch is COPYed into a staging table,
    then upserted in the same transaction that moves the checkpoint, so a stopped import
    resumes exactly where it left off.
    """
    report = ImportReport()
    key = file_key(path)
    checkpoint, _ = ImportCheckpoint.objects.get_or_create(kind="arxiv", file_key=key)
    if restart or checkpoint.finished:
        checkpoint.line = checkpoint.byte_offset = checkpoint.imported = checkpoint.bad_lines = 0
        checkpoint.finished = False
    report.resumed_at = checkpoint.line
    # Inside a caller's transaction the locators' deferred foreign-key checks are still pending
    # at the end, and PostgreSQL refuses to build an index on a table that has some: the
    # indexes are kept up row by row there (the command runs each batch in its own).
    in_transaction = connection.in_atomic_block
    deferred = not in_transaction and _defer_indexes("arxiv", path, _BYTES_PER_PAPER)
    try:

        def store(rows: list[tuple[Any, ...]], line: int, offset: int, last: bool) -> None:
            _load_batch(rows, checkpoint, line, offset, report, actor, reason, path, final=last)

        _read_snapshot(path, checkpoint, report, store, batch_size, processes, progress)
    finally:
        if deferred:  # also when the load stopped: the resolver's lookups need the indexes
            settle_catalogue("arxiv")
    # Also when no paper changed: the locators follow every line (the planner must know the
    # locator table is large).
    if not deferred:
        settle_catalogue("arxiv")
    if report.inserted or report.updated:
        refresh_title_words()
    return report


def _read_snapshot(
    path: Path,
    checkpoint: ImportCheckpoint,
    report: ImportReport,
    store: Callable[[list[tuple[Any, ...]], int, int, bool], None],
    batch_size: int,
    processes: int,
    progress: Callable[[int], None] | None,
) -> None:
    """Read a snapshot from its checkpoint in pieces of `batch_size` lines, parsed by
    `processes` worker processes, and `store` each piece's rows (import_arxiv_snapshot)."""
    limits = current_limits()
    with open_input(path) as handle:
        if checkpoint.byte_offset:
            handle.seek(checkpoint.byte_offset)
        start = (checkpoint.line, checkpoint.byte_offset)
        pieces = snapshot_pieces(handle, path, start, batch_size, limits)
        for piece, made in _in_order(pieces, read_snapshot_piece, processes):
            report.read += len(piece.lines)
            for message in made.bad:
                report.note_bad(message)
            # The complete lines read before a file stops being readable are good: kept, and
            # report.stopped says where reading stopped.
            report.stopped = report.stopped or piece.stopped
            store(made.rows, piece.line, piece.offset, piece.last)
            if progress and made.rows:
                progress(len(made.rows))


def settle_catalogue(catalogue: str) -> int:
    """Merge a catalogue's GIN pending list and refresh its statistics after a bulk load.

    Bulk inserts park new full-text entries in the GIN pending list, which every search then
    scans linearly (10 ms instead of 0.2 ms per title query on 100k papers) until a vacuum.
    Only an index's owner may merge it or ANALYZE its table, and imports run as the runtime
    role, which owns nothing: the owner's function resolution_settle_catalogue (migration
    resolution 0005) does both for "arxiv" or "crossref". Return the pending pages merged.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT resolution_settle_catalogue(%s)", [catalogue])
        return int(cursor.fetchone()[0])


_TITLE_WORDS = """
INSERT INTO resolution_titleword (word, titles)
SELECT word, count(*) FROM (
    SELECT unnest(string_to_array(title_norm, ' ')) AS word FROM curation_paper
    UNION ALL
    SELECT unnest(string_to_array(title_norm, ' ')) FROM resolution_crossrefwork
) words WHERE length(word) BETWEEN 1 AND 64 GROUP BY word
"""


@transaction.atomic
def refresh_title_words() -> None:
    """Recount the catalogue's title words, so searches can pick each title's rarest words."""
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM resolution_titleword")
        cursor.execute(_TITLE_WORDS)


def catalogue_rows_upsert(
    rows: Sequence[tuple[Any, ...]], *, actor: Actor, reason: str
) -> tuple[int, int]:
    """Upsert numbered `arxiv_row` rows into the catalogue; return (inserted, updated).

    The snapshot import and the OAI-PMH harvest both land here, so a paper reads the same
    whichever brought it. Rows are (line, *arxiv_row(...)); of one arXiv id the last line wins.
    """
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_CREATE_STAGE)
        cursor.execute(f"TRUNCATE {_STAGE}")  # inside an outer transaction nothing commits
        columns = ", ".join(("line", *PAPER_COLUMNS, *LOCATOR_COLUMNS))
        # COPY bypasses Django's execute wrapper, so it carries no history context, but it
        # only fills the staging table, which has no triggers.
        with cursor.cursor.copy(f"COPY {_STAGE} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        # The upsert goes through Django's cursor: pghistory prefixes it with the context,
        # so every paper it updates is a history event with this import's actor and reason.
        with audited(actor, reason):
            cursor.execute(_UPSERT, [timezone.now()])
            inserted, updated = cursor.fetchone()
            cursor.execute(_LOCATORS)
    return int(inserted), int(updated)


_Item = TypeVar("_Item")
_Piece = TypeVar("_Piece")
_Made = TypeVar("_Made")


_Result = TypeVar("_Result")


def _store_apart_from_refused(
    items: list[_Item],
    store: Callable[[list[_Item]], _Result],
    refused: Callable[[_Item, str], None],
) -> list[_Result]:
    """Store items in one go; should the database refuse that, store each half the same way.

    The line checks should leave nothing for the database to refuse; if one slips past them it
    costs itself only, found in about 2 log2(batch) attempts, and `refused(item, why)` reports
    it. Each attempt is its own transaction or savepoint, so a refused one leaves nothing.
    """
    try:
        with transaction.atomic():
            return [store(items)]
    except _REFUSED as exc:
        if len(items) == 1:
            refused(items[0], _first_line(exc))
            return []
    half = len(items) // 2
    return _store_apart_from_refused(items[:half], store, refused) + _store_apart_from_refused(
        items[half:], store, refused
    )


def _commit_without_waiting() -> None:
    """Let this batch's transaction commit without waiting for its WAL to reach the disk.

    A crash may then lose the last batches' commits (under a second of them), never a part
    of one: each moves its file's checkpoint in the same transaction, so the import resumes
    from the last batch that reached the disk, as after any stop.
    """
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit = off")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _load_batch(
    rows: list[tuple[Any, ...]],
    checkpoint: ImportCheckpoint,
    line: int,
    offset: int,
    report: ImportReport,
    actor: Actor,
    reason: str,
    path: Path,
    final: bool = False,
) -> None:
    """COPY rows into staging and upsert them, moving the checkpoint in the same transaction."""

    def upsert(batch: list[tuple[Any, ...]]) -> tuple[int, int]:
        return catalogue_rows_upsert(batch, actor=actor, reason=reason)

    refused_lines: list[int] = []

    def refused(row: tuple[Any, ...], why: str) -> None:
        refused_lines.append(row[0])
        report.note_bad(f"{path}:{row[0]}: the database refused it: {why}")

    with transaction.atomic():
        _commit_without_waiting()
        if rows:
            for inserted, updated in _store_apart_from_refused(rows, upsert, refused):
                report.inserted += inserted
                report.updated += updated
        checkpoint.line, checkpoint.byte_offset = line, offset
        checkpoint.imported += len(rows) - len(refused_lines)
        checkpoint.bad_lines = report.bad_count
        checkpoint.finished = final
        checkpoint.save()


_CROSSREF_UPDATED = [
    "title", "title_norm", "title_key", "container_title", "first_author", "authors",
    "year", "type", "updated_by", "update_to", "raw", "imported_at",
    "venue_key", "short_venue_key", "volume", "first_page", "issue", "arxiv_versions",
]  # fmt: skip


def store_crossref_works(works: Iterable[dict[str, Any]], keep_raw: bool = False) -> int:
    """Insert or refresh Crossref works in the local catalogue; return how many were stored."""
    return _store_crossref_fields([crossref_fields(work, keep_raw) for work in works])


def _store_crossref_fields(batch: Sequence[dict[str, Any]]) -> int:
    """Upsert checked crossref_fields by DOI (of one DOI the last wins); return how many."""
    objects = {fields["doi"]: CrossrefWork(**fields) for fields in batch}
    if not objects:
        return 0
    CrossrefWork.objects.bulk_create(
        list(objects.values()),
        update_conflicts=True,
        unique_fields=["doi"],
        update_fields=_CROSSREF_UPDATED,
    )
    return len(objects)


# A work a file gives again unchanged is left as it is (imported_at then says when an import
# last changed it): a re-import of a catalogue bigger than shared_buffers otherwise rewrites
# every row and its index entries, about twice the CPU of the first import (90 against 52 µs
# of PostgreSQL per work, 1M works).
_CROSSREF_CHANGED = [c for c in _CROSSREF_UPDATED if c != "imported_at"]

_CROSSREF_STAGE = "resolution_crossref_stage"

_CROSSREF_TYPES = {
    "year": "smallint", "updated_by": "jsonb", "update_to": "jsonb", "raw": "jsonb",
    "arxiv_versions": "text[]",
}  # fmt: skip

# Text columns are plain text here, so a value too long for its column is refused by the
# upsert (and found by _store_apart_from_refused), never by the COPY of the whole batch.
_CREATE_CROSSREF_STAGE = (
    f"CREATE TEMP TABLE IF NOT EXISTS {_CROSSREF_STAGE} (line bigint, "
    + ", ".join(f"{c} {_CROSSREF_TYPES.get(c, 'text')}" for c in CROSSREF_COLUMNS)
    + ") ON COMMIT DELETE ROWS"
)

_CROSSREF_UPSERT = f"""
WITH up AS (
    INSERT INTO resolution_crossrefwork ({", ".join(CROSSREF_COLUMNS)}, imported_at)
    SELECT DISTINCT ON (doi) {", ".join(CROSSREF_COLUMNS)}, %s FROM {_CROSSREF_STAGE}
    ORDER BY doi, line DESC
    ON CONFLICT (doi) DO UPDATE SET {", ".join(f"{c} = EXCLUDED.{c}" for c in _CROSSREF_UPDATED)}
    WHERE ({", ".join(f"resolution_crossrefwork.{c}" for c in _CROSSREF_CHANGED)})
        IS DISTINCT FROM ({", ".join(f"EXCLUDED.{c}" for c in _CROSSREF_CHANGED)})
    RETURNING (xmax = 0) AS inserted
)
SELECT count(*) FILTER (WHERE inserted), count(*) FILTER (WHERE NOT inserted) FROM up
"""


def import_crossref_works(
    *,
    path: Path,
    batch_size: int = 20_000,
    keep_raw: bool = False,
    processes: int = 1,
    restart: bool = False,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Load Crossref works (a file, a folder of files, a tar) into the local DOI catalogue.

    Worker processes parse the files (catalogue_files.read_piece); this process COPYs their
    rows into a staging table and upserts each batch in the transaction that moves the file's
    checkpoint, so a stopped import resumes where it stopped: past the files done, at the line
    (JSON lines) or item ({"items"} document) reached. A bad item (a field of the wrong type,
    a year outside YEARS, a DOI longer than its column, a character PostgreSQL cannot store)
    is skipped with where it is and why; the items around it are stored. One file alone: a
    document of the wrong shape raises BadLine and nothing of it is stored. In a folder or tar
    such a file, or one that cannot be read to its end, is reported and the others imported;
    `report.stopped` then names the first.
    """
    report = ImportReport()
    whole = set_key(path)
    if whole is not None:
        _start_set(whole, restart)
    deferred = _defer_indexes("crossref", path, _BYTES_PER_WORK)
    try:
        pieces = _crossref_pieces(path, whole, batch_size, keep_raw, restart, report)
        for piece, rows in _in_order(pieces, read_piece, processes):
            _store_piece(piece, rows, whole, batch_size, report)
            if progress:
                progress(rows.read)
    finally:
        if deferred:  # also when the load stopped: the resolver's title search needs it
            settle_catalogue("crossref")
    if whole is not None and report.stopped is None:
        ImportCheckpoint.objects.filter(kind=_SET, file_key=whole).update(finished=True)
    if report.inserted or report.updated:
        if not deferred:
            settle_catalogue("crossref")
        refresh_title_words()
    return report


# The table each catalogue fills.
_TABLES = {"crossref": "resolution_crossrefwork", "arxiv": "curation_paper"}

# Fewest bytes a work takes in a file (gzip'd, without references): the input holds at least
# its size over this many works.
_BYTES_PER_WORK = 4096

# Fewest bytes a snapshot line takes (arXiv's average about 1,500, most of it the abstract).
_BYTES_PER_PAPER = 1024


def _defer_indexes(catalogue: str, path: Path, bytes_per_row: int) -> bool:
    """Drop a catalogue's secondary indexes for a load at least as large as it; True when
    dropped.

    Kept up row by row, the title's GIN index costs more than half of PostgreSQL's time per
    row, and the btree indexes most of the rest once they outgrow shared_buffers (random page
    writes); built after the load (by settle_catalogue), a sort each, when the load is large
    relative to the table. The owner's function does the drop (migrations 0009, 0010).
    """
    files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
    incoming = sum(p.stat().st_size for p in files) // bytes_per_row
    table = _TABLES[catalogue]
    with connection.cursor() as cursor:
        # The planner's estimate, kept by the ANALYZE of every import; counted (no further than
        # the load's size) when the table was never analyzed.
        cursor.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [table])
        held = float(cursor.fetchone()[0])
        if held < 0:
            cursor.execute(f"SELECT count(*) FROM (SELECT FROM {table} LIMIT %s) t", [incoming])
            held = float(cursor.fetchone()[0])
        if incoming < max(held, 1):
            return False
        cursor.execute("SELECT resolution_defer_catalogue_index(%s)", [catalogue])
        return bool(cursor.fetchone()[0])


_SET = "crossref-set"


def _start_set(whole: str, restart: bool) -> None:
    """Begin a folder or tar: anew when asked or when its last run finished, else resume it."""
    checkpoint, _ = ImportCheckpoint.objects.get_or_create(kind=_SET, file_key=whole)
    if restart or checkpoint.finished:
        ImportCheckpoint.objects.filter(kind="crossref", file_key__startswith=f"{whole}!").delete()
        checkpoint.finished = False
        checkpoint.save()


def _crossref_pieces(
    path: Path, whole: str | None, size: int, keep_raw: bool, restart: bool, report: ImportReport
) -> Iterator[Piece]:
    """Yield the pieces still to import of each file, skipping the files a run finished."""
    limits = current_limits()
    for source in sources(path):
        checkpoint, _ = ImportCheckpoint.objects.get_or_create(kind="crossref", file_key=source.key)
        if checkpoint.finished and whole is not None:
            continue  # done by the run this one resumes
        if restart or checkpoint.finished:
            checkpoint.line = checkpoint.byte_offset = checkpoint.imported = 0
            checkpoint.bad_lines = 0
            checkpoint.finished = False
            checkpoint.save()
        report.resumed_at = report.resumed_at or checkpoint.line
        if is_document(source):
            yield Piece(source, limits, keep_raw, skip=checkpoint.line, last=True)
            continue
        with source.open() as handle:
            if checkpoint.byte_offset:
                handle.seek(checkpoint.byte_offset)
            start = (checkpoint.line, checkpoint.byte_offset)
            yield from line_pieces(source, handle, start, size, limits, keep_raw)


def _in_order(
    pieces: Iterator[_Piece], read: Callable[[_Piece], _Made], processes: int
) -> Iterator[tuple[_Piece, _Made]]:
    """Read pieces in `processes` worker processes (here with 1), yielding them in order.

    At most two pieces per process are in flight, so memory stays flat whatever the input's
    size. Workers are forked: they inherit Django as set up here and never touch the database.
    """
    if processes <= 1:
        for piece in pieces:
            yield piece, read(piece)
        return
    load_tables()
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        flight: deque[tuple[_Piece, AsyncResult[_Made]]] = deque()
        for piece in pieces:
            flight.append((piece, pool.apply_async(read, (piece,))))
            if len(flight) >= 2 * processes:
                done, result = flight.popleft()
                yield done, result.get()
        while flight:
            done, result = flight.popleft()
            yield done, result.get()


def _store_piece(
    piece: Piece, rows: PieceRows, whole: str | None, batch_size: int, report: ImportReport
) -> None:
    """Store a read piece in batches, each with the checkpoint of its file moved past it."""
    report.read += rows.read
    for message in rows.bad:
        report.note_bad(message)
    if rows.refused is not None:
        if whole is None:
            raise BadLine(rows.refused)  # one file of the wrong shape: refused whole, as before
        report.note_bad(rows.refused)
        report.stopped = report.stopped or rows.refused
        return
    checkpoint = ImportCheckpoint.objects.get(kind="crossref", file_key=piece.source.key)
    batches = [rows.rows[i : i + batch_size] for i in range(0, len(rows.rows), batch_size)]
    for number, batch in enumerate(batches or [[]], 1):
        last = number == len(batches or [[]])
        with transaction.atomic():
            _commit_without_waiting()
            _store_crossref_rows(batch, report)
            if piece.lines is None:  # a document: how many of its items are done
                checkpoint.line = rows.items if last else batch[-1][1] + 1
            else:
                checkpoint.line, checkpoint.byte_offset = piece.line, piece.offset
            checkpoint.imported += len(batch)
            checkpoint.bad_lines = report.bad_count
            checkpoint.finished = last and piece.last
            checkpoint.save()
    if piece.stopped is not None:
        report.stopped = report.stopped or piece.stopped


def _store_crossref_rows(batch: list[tuple[str, int, bytes]], report: ImportReport) -> None:
    """COPY rows into staging and upsert them; a row the database refuses is skipped alone."""

    def store(items: list[tuple[str, int, bytes]]) -> tuple[int, int]:
        with connection.cursor() as cursor:
            cursor.execute(_CREATE_CROSSREF_STAGE)
            cursor.execute(f"TRUNCATE {_CROSSREF_STAGE}")
            columns = ", ".join(("line", *CROSSREF_COLUMNS))
            with cursor.cursor.copy(f"COPY {_CROSSREF_STAGE} ({columns}) FROM STDIN") as copy:
                copy.write(b"".join(b"%d\t%s\n" % (n, row) for n, (_, _, row) in enumerate(items)))
            cursor.execute(_CROSSREF_UPSERT, [timezone.now()])
            inserted, updated = cursor.fetchone()
        return int(inserted), int(updated)

    def refused(item: tuple[str, int, bytes], why: str) -> None:
        report.note_bad(f"{item[0]}: the database refused it: {why}")

    if batch:
        for inserted, updated in _store_apart_from_refused(batch, store, refused):
            report.inserted += inserted
            report.updated += updated
