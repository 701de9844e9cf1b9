"""Catalogue imports: the arXiv metadata snapshot (COPY + upsert) and Crossref works.

Every line is checked before it joins a batch (types of the fields used, identifiers against
their column sizes, smallint ranges, years, characters PostgreSQL cannot store), so one bad
line is skipped with its file:line and reason and never rolls back the good lines of its
batch. Should the database refuse a batch all the same, the batch is split until the line it
refuses is found, and that line alone is skipped (`_store_apart_from_refused`).
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, TypeVar

import orjson
import psycopg
from django.db import DataError, IntegrityError, connection, transaction
from django.utils import timezone
from orjson import loads as _loads  # about three times faster than json.loads on snapshot lines

from curation.audit import Actor, audited
from curation.limits import (
    JsonTooDeep,
    Limits,
    container_too_deep,
    current_limits,
    drop_escaped_nul,
    loads_bounded,
    read_line,
    walk,
)
from curation.models import Paper
from curation.resolution.models import CrossrefWork, ImportCheckpoint
from curation.resolution.text import fold_name, title_norm
from curation.resolution.venues import first_page, page_key, parse_journal_ref, venue_key

_MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}
_WITHDRAWN = ("this paper has been withdrawn", "withdrawn by", "paper withdrawn")
PAPER_COLUMNS = (
    "arxiv_id", "title", "authors", "doi", "categories", "primary_category", "latest_version",
    "submitted_at", "last_updated", "journal_ref", "comments", "first_author", "year",
    "title_norm", "title_key", "withdrawn",
)  # fmt: skip
# Columns an import may change on an existing paper; a change is a history event.
_UPDATED = [c for c in PAPER_COLUMNS if c != "arxiv_id"]


DEFAULT_LIMITS = Limits()

# What the columns hold: a line past them is refused by name instead of failing its batch.
ARXIV_ID_CHARS: int = Paper._meta.get_field("arxiv_id").max_length  # type: ignore[union-attr,assignment]
DOI_CHARS: int = CrossrefWork._meta.get_field("doi").max_length  # type: ignore[union-attr,assignment]
SMALLINT_MAX = 32_767  # curation_paper.latest_version and the year columns are smallint
# A catalogue year has four digits: Crossref lists works back to the 1600s, and a year past
# these is a typo (99999) or a placeholder (0), not a date worth matching references on.
YEARS = range(1000, 10_000)
# PostgreSQL text and jsonb cannot hold NUL, and UTF-8 cannot encode a lone UTF-16 surrogate
# (json.loads makes one of "\ud800"; orjson refuses it while parsing).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
# What the database raises for a value its column refuses; COPY raises psycopg's own errors.
_REFUSED = (DataError, IntegrityError, psycopg.DataError, psycopg.IntegrityError)


class BadLine(ValueError):
    """A line of an input file that cannot be imported (the message says which field)."""


class UnreadableInput(ValueError):
    """A file that cannot be read past some line (truncated or corrupt compressed data)."""


@dataclass
class ImportReport:
    """What a catalogue import did."""

    read: int = 0
    inserted: int = 0
    updated: int = 0
    bad: list[str] = field(default_factory=list)
    bad_count: int = 0
    resumed_at: int = 0
    stopped: str | None = None  # why the file could not be read to its end, naming the line

    def note_bad(self, message: str) -> None:
        """Record a skipped line (keeping the first messages only: memory stays flat)."""
        self.bad_count += 1
        if len(self.bad) < 1000:
            self.bad.append(message)


def open_input(path: Path) -> IO[bytes]:
    """Open a plain or gzip-compressed file for reading bytes."""
    if path.suffix == ".gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return path.open("rb")


def file_key(path: Path) -> str:
    """Return what identifies one version of a file: its path, size and modification time."""
    stat = path.stat()
    return f"{path.resolve()}:{stat.st_size}:{int(stat.st_mtime)}"


# --- arXiv snapshot ----------------------------------------------------------------------


def _version_time(created: str) -> datetime | None:
    """Parse arXiv's "Mon, 2 Apr 2007 19:18:42 GMT" quickly (millions of them)."""
    try:
        _, day, month, year, clock, _ = created.split()
        hour, minute, second = clock.split(":")
        return datetime(
            int(year), _MONTHS[month[:3].lower()], int(day),
            int(hour), int(minute), int(second), tzinfo=UTC,
        )  # fmt: skip
    except (ValueError, KeyError):
        return None


def _first_surname(item: dict[str, Any], authors: str) -> str:
    parsed = item.get("authors_parsed")
    if isinstance(parsed, list) and parsed and isinstance(parsed[0], list) and parsed[0]:
        return fold_name(str(parsed[0][0]))[:128]
    first = authors.replace(" and ", ",").split(",")[0].split()
    return fold_name(first[-1])[:128] if first else ""


def _json_type(value: Any) -> str:
    """Name a JSON value's type as a person reads it in an error ("a number", "a list")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _text(value: Any, name: str) -> str:
    """Return a string field with its whitespace collapsed ("" for null or absent).

    Any other type is refused by name: str() of a list or an object would store its Python
    form as if it were the title or the authors.
    """
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadLine(f"field {name!r}: expected a string, found {_json_type(value)}")
    return " ".join(value.split())


def _check_year(year: int | None, name: str) -> None:
    if year is not None and year not in YEARS:
        raise BadLine(f"field {name!r}: year {year} is outside {YEARS.start}-{YEARS.stop - 1}")


def _check_storable(row: tuple[Any, ...]) -> None:
    """Refuse a row with a character PostgreSQL cannot store, naming its column.

    Snapshot lines cannot carry one (orjson refuses lone surrogates, escaped NULs are dropped
    before parsing), but arxiv_row also builds the OAI-PMH harvest's rows, and one such value
    would fail the COPY of its whole batch.
    """
    if not _UNSTORABLE.search("".join(v for v in row if isinstance(v, str))):
        return  # one search for the whole row: millions of lines pass here
    for column, value in zip(PAPER_COLUMNS, row, strict=False):
        if isinstance(value, str) and (bad := _UNSTORABLE.search(value)):
            raise BadLine(f"field {column!r}: {_unstorable(bad)}")


def _unstorable(bad: re.Match[str]) -> str:
    what = "a NUL character" if bad.group() == "\x00" else "a lone UTF-16 surrogate"
    return f"contains {what} at position {bad.start()}, which cannot be stored"


def arxiv_row(item: Any, limits: Limits = DEFAULT_LIMITS) -> tuple[Any, ...]:
    """Return the curation_paper row of one snapshot object; raise BadLine naming the field."""
    if not isinstance(item, dict):
        raise BadLine("expected a JSON object")
    arxiv_id = item.get("id")
    if not isinstance(arxiv_id, str) or not arxiv_id.strip():
        raise BadLine("field 'id': expected a non-empty string")
    arxiv_id = arxiv_id.strip()
    if len(arxiv_id) > ARXIV_ID_CHARS:
        raise BadLine(
            f"field 'id': {len(arxiv_id)} characters, longer than the {ARXIV_ID_CHARS} "
            "an arXiv id is stored in"
        )
    title = _text(item.get("title"), "title")
    if not title:
        raise BadLine("field 'title': expected a non-empty string")
    _check_title(title, limits)
    versions = item.get("versions") or []
    if not isinstance(versions, list):
        raise BadLine("field 'versions': expected a list")
    if len(versions) > SMALLINT_MAX:
        raise BadLine(
            f"field 'versions': {len(versions):,} versions, more than the {SMALLINT_MAX:,} stored"
        )
    times = [_version_time(str(v.get("created", ""))) for v in versions if isinstance(v, dict)]
    submitted = times[0] if times else None
    last = times[-1] if times else None
    authors = _text(item.get("authors"), "authors")
    categories = _text(item.get("categories"), "categories")
    comments = _text(item.get("comments"), "comments")
    doi = _text(item.get("doi"), "doi")
    journal_ref = _text(item.get("journal-ref"), "journal-ref")
    update_date = _text(item.get("update_date"), "update_date")
    norm = title_norm(title)
    if submitted:
        year: int | None = submitted.year
        _check_year(year, "versions")
    else:
        year = _year_of(update_date)
        _check_year(year, "update_date")
    row = (
        arxiv_id, title, authors, doi.lower()[:255],
        categories[:255], categories.split(" ")[0][:64] or None, len(versions) or None,
        submitted, last, journal_ref, comments, _first_surname(item, authors), year,
        norm, norm.replace(" ", "")[:255], any(w in comments.lower() for w in _WITHDRAWN),
        *_locator_columns(journal_ref),
    )  # fmt: skip
    _check_storable(row)
    return row


def _locator_columns(journal_ref: str) -> tuple[str, str, str, int | None]:
    """Return the staged locator of a journal-ref (venue key, volume, first page, year)."""
    locator = parse_journal_ref(journal_ref)
    if locator is None:
        return ("", "", "", None)
    return (locator.venue_key, locator.volume, locator.first_page, locator.year)


def _year_of(text: str) -> int | None:
    digits = text[:4]
    return int(digits) if digits.isascii() and digits.isdigit() else None


_STAGE = "resolution_arxiv_stage"
_STAGE_TYPES = (
    "text", "text", "text", "text", "text", "text", "smallint", "timestamptz", "timestamptz",
    "text", "text", "text", "smallint", "text", "text", "boolean",
)  # fmt: skip
LOCATOR_COLUMNS = ("venue_key", "volume", "first_page", "locator_year")
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


def _check_title(title: str, limits: Limits) -> None:
    if len(title) > limits.string_chars:
        raise BadLine(
            f"field 'title': {len(title):,} characters, longer than "
            f"{limits.describe('string_chars', 'characters')}"
        )


def _numbered_lines(
    handle: IO[bytes], start_line: int, path: Path, limit: int
) -> Iterator[tuple[int, int, bytes | None]]:
    """Yield (line number, byte offset after the line, line) from the current position.

    A line longer than `limit` bytes comes as None (read past, never held); data that stops
    being readable (a truncated or corrupt .gz) raises UnreadableInput naming the line.
    """
    number, offset = start_line, handle.tell()
    while True:
        try:
            line, length = read_line(handle, limit)
        except (EOFError, OSError, zlib.error) as exc:
            raise UnreadableInput(f"{path}: line {number + 1}: {_unreadable(exc)}") from None
        if not length:
            return
        number += 1
        offset += length
        yield number, offset, line


def _unreadable(exc: BaseException) -> str:
    """Say in a few words why compressed input stopped being readable."""
    if isinstance(exc, EOFError):
        return "the compressed data ends early (truncated .gz file?); the lines before it were read"
    if isinstance(exc, gzip.BadGzipFile | zlib.error):
        return f"corrupt compressed data ({exc}); the lines before it were read"
    return f"cannot read the file ({exc}); the lines before it were read"


def parse_line(line: bytes, limits: Limits) -> Any:
    """Parse one JSON line; raise BadLine for JSON nested past the limit (not RecursionError)."""
    line = drop_escaped_nul(line)
    depth = limits.describe("json_depth", "levels")
    try:
        value = _loads(line)
    except RecursionError:
        raise BadLine(f"nested deeper than {depth}") from None
    except ValueError as exc:  # orjson stops at 1,024 levels with a decode error of its own
        if "recursion" in str(exc):
            raise BadLine(f"nested deeper than {depth}") from None
        raise
    # Fewer brackets than the limit cannot nest past it: most lines skip the walk.
    if line.count(b"[") + line.count(b"{") > limits.json_depth:
        path = container_too_deep(value, limits.json_depth)
        if path is not None:
            raise BadLine(f"{path}: nested deeper than {depth}")
    return value


def _too_long(length: int, limits: Limits) -> str:
    return f"line of {length:,} bytes is longer than {limits.describe('line_bytes', 'bytes')}"


def import_arxiv_snapshot(
    *,
    path: Path,
    actor: Actor,
    reason: str,
    batch_size: int = 20_000,
    progress: Callable[[int], None] | None = None,
    restart: bool = False,
) -> ImportReport:
    """Load an arXiv snapshot into the catalogue, in batches, resuming after the last one done.

    Each batch is COPYed into a staging table, then upserted in the same transaction that
    moves the checkpoint, so a stopped import resumes exactly where it left off.
    """
    report = ImportReport()
    key = file_key(path)
    checkpoint, _ = ImportCheckpoint.objects.get_or_create(kind="arxiv", file_key=key)
    if restart or checkpoint.finished:
        checkpoint.line = checkpoint.byte_offset = checkpoint.imported = checkpoint.bad_lines = 0
        checkpoint.finished = False
    report.resumed_at = checkpoint.line
    limits = current_limits()
    with open_input(path) as handle:
        if checkpoint.byte_offset:
            handle.seek(checkpoint.byte_offset)
        rows: list[tuple[Any, ...]] = []
        last_line, last_offset = checkpoint.line, checkpoint.byte_offset
        lines = _numbered_lines(handle, checkpoint.line, path, limits.line_bytes)
        try:
            for number, offset, line in lines:
                length, last_line, last_offset = offset - last_offset, number, offset
                report.read += 1
                if line is None:
                    report.note_bad(f"{path}:{number}: {_too_long(length, limits)}")
                    continue
                if not line.strip():
                    continue
                try:
                    rows.append((number, *arxiv_row(parse_line(line, limits), limits)))
                except BadLine as exc:
                    report.note_bad(f"{path}:{number}: {exc}")
                except ValueError as exc:
                    report.note_bad(f"{path}:{number}: not JSON: {exc}")
                if len(rows) >= batch_size:
                    _load_batch(rows, checkpoint, number, offset, report, actor, reason, path)
                    if progress:
                        progress(len(rows))
                    rows = []
        except UnreadableInput as exc:
            # The complete lines read so far are good: keep them, and say where reading stopped.
            report.stopped = str(exc)
        final = report.stopped is None
        _load_batch(
            rows, checkpoint, last_line, last_offset, report, actor, reason, path, final=final
        )
        if progress and rows:
            progress(len(rows))
    # Also when no paper changed: the locators follow every line (the planner must know the
    # locator table is large).
    settle_catalogue("arxiv")
    if report.inserted or report.updated:
        refresh_title_words()
    return report


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
        if rows:
            for inserted, updated in _store_apart_from_refused(rows, upsert, refused):
                report.inserted += inserted
                report.updated += updated
        checkpoint.line, checkpoint.byte_offset = line, offset
        checkpoint.imported += len(rows) - len(refused_lines)
        checkpoint.bad_lines = report.bad_count
        checkpoint.finished = final
        checkpoint.save()


# --- Crossref works ----------------------------------------------------------------------

_DATES = ("issued", "published-print", "published-online", "published", "created")
_CROSSREF_UPDATED = [
    "title", "title_norm", "title_key", "container_title", "first_author", "authors",
    "year", "type", "updated_by", "update_to", "raw", "imported_at",
    "venue_key", "short_venue_key", "volume", "first_page",
]  # fmt: skip


def _first(work: dict[str, Any], name: str) -> str:
    """Return a Crossref text field that is a list of strings (title) or a string: the first."""
    value = work.get(name)
    if isinstance(value, list):
        return _text(value[0], f"{name}[0]") if value else ""
    return _text(value, name)


def _issued_year(work: dict[str, Any]) -> int | None:
    """Return the year of the first date Crossref gives, or None; refuse a malformed date."""
    for name in _DATES:
        date = work.get(name)
        if date is None:
            continue
        if not isinstance(date, dict):
            raise BadLine(
                f"field {name!r}: expected an object with 'date-parts', found {_json_type(date)}"
            )
        parts = date.get("date-parts") or []
        if not isinstance(parts, list) or (parts and not isinstance(parts[0], list)):
            raise BadLine(f"field '{name}.date-parts': expected a list of [year, month, day]")
        year = parts[0][0] if parts and parts[0] else None
        if year is None:
            continue  # Crossref's "no date": [[null]]
        if not isinstance(year, int) or isinstance(year, bool):
            raise BadLine(f"field '{name}.date-parts': expected a year, found {_json_type(year)}")
        _check_year(year, f"{name}.date-parts")
        return year
    return None


def _author_names(work: dict[str, Any]) -> list[str]:
    authors = work.get("author")
    if authors is None:
        return []
    if not isinstance(authors, list):
        raise BadLine(
            f"field 'author': expected a list of author objects, found {_json_type(authors)}"
        )
    return [
        _text(author.get("family"), f"author[{i}].family")
        or _text(author.get("name"), f"author[{i}].name")
        for i, author in enumerate(authors)
        if isinstance(author, dict)
    ]


def _list(work: dict[str, Any], name: str) -> list[Any]:
    value = work.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadLine(f"field {name!r}: expected a list, found {_json_type(value)}")
    return value


def _check_storable_json(work: dict[str, Any]) -> None:
    """Refuse a work holding a string PostgreSQL cannot store, naming its JSON path.

    json.loads (a {"items"} file, the Crossref API) turns "\\ud800" into a lone surrogate;
    orjson's encoder refuses those and writes NUL as an escape, so one call in C clears
    nearly every work and only a suspect one is walked.
    """
    try:
        if b"\\u0000" not in orjson.dumps(work):
            return
    except orjson.JSONEncodeError:
        pass
    for path, value, _ in walk(work):
        for string in list(value) if isinstance(value, dict) else [value]:
            if isinstance(string, str) and (bad := _UNSTORABLE.search(string)):
                where = path if string is value else f"{path} (key {string[:40]!r})"
                raise BadLine(f"{where}: {_unstorable(bad)}")


def crossref_fields(
    work: Any, keep_raw: bool = False, limits: Limits | None = None
) -> dict[str, Any]:
    """Return the CrossrefWork fields of one work object; raise BadLine naming the field.

    With `limits` (a file import), a title over the string limit is refused too.
    """
    if not isinstance(work, dict):
        raise BadLine("expected a Crossref work object")
    doi = work.get("DOI")
    if not isinstance(doi, str) or not doi.startswith("10."):
        raise BadLine("field 'DOI': expected a DOI string starting with '10.'")
    doi = doi.strip().lower()
    if len(doi) > DOI_CHARS:
        raise BadLine(
            f"field 'DOI': {len(doi)} characters, longer than the {DOI_CHARS} a DOI is stored in"
        )
    _check_storable_json(work)
    title = _first(work, "title")
    if limits is not None:
        _check_title(title, limits)
    names = _author_names(work)
    norm = title_norm(title)
    return {
        "doi": doi,
        "title": title,
        "title_norm": norm,
        "title_key": norm.replace(" ", "")[:255],
        "container_title": _first(work, "container-title"),
        "first_author": fold_name(names[0])[:128] if names else "",
        "authors": ", ".join(n for n in names if n),
        "year": _issued_year(work),
        "type": _text(work.get("type"), "type")[:64],
        "updated_by": _list(work, "updated-by"),
        "update_to": _list(work, "update-to"),
        "raw": work if keep_raw else None,
        **_crossref_locator(work),
    }


def _crossref_locator(work: dict[str, Any]) -> dict[str, str]:
    """Return the journal keys, volume and first page of a Crossref work."""
    page = first_page(_text(work.get("page"), "page")) or page_key(
        _text(work.get("article-number"), "article-number")
    )
    return {
        "venue_key": venue_key(_first(work, "container-title")),
        "short_venue_key": venue_key(_first(work, "short-container-title")),
        "volume": page_key(_text(work.get("volume"), "volume")),
        "first_page": page,
    }


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


def _crossref_items(path: Path, report: ImportReport) -> Iterator[tuple[str, Any]]:
    """Yield (where, work) from JSON lines, or from one {"items"} / {"message": {"items"}} file."""
    limits = current_limits()
    with open_input(path) as handle:
        head = b""
        try:
            while len(head) < 1 << 16 and (chunk := handle.read(1 << 12)):
                head += chunk
        except (EOFError, OSError, zlib.error):
            pass  # reading again below reports it, with the line it reached
        handle.seek(0)
        stripped = head.lstrip()
        whole = stripped.startswith(b"{") and (b'"items"' in head) and b"\n{" not in stripped
        if whole:
            document = _whole_document(handle, path, limits)
            where, items = _document_items(document, path)
            for index, item in enumerate(items):
                yield f"{path}: {where}[{index}]", item
            return
        previous = 0
        try:
            for number, offset, line in _numbered_lines(handle, 0, path, limits.line_bytes):
                length, previous = offset - previous, offset
                if line is None:
                    report.read += 1
                    report.note_bad(f"{path}:{number}: {_too_long(length, limits)}")
                    continue
                if not line.strip():
                    continue
                report.read += 1
                try:
                    yield f"{path}:{number}", parse_line(line, limits)
                except BadLine as exc:
                    report.note_bad(f"{path}:{number}: {exc}")
                except ValueError as exc:
                    report.note_bad(f"{path}:{number}: not JSON: {exc}")
        except UnreadableInput as exc:
            report.stopped = str(exc)


def _document_items(document: dict[str, Any], path: Path) -> tuple[str, list[Any]]:
    """Return where the works are and the works of a {"items"} or {"message": {"items"}} file.

    A Crossref API answer holds its works in "message"; a file of ours at the top. A document
    of neither shape is refused whole, naming the JSON path that is wrong.
    """
    if "message" in document:
        message = document["message"]
        if not isinstance(message, dict):
            raise BadLine(
                f"{path}: $.message: expected an object with an 'items' list, "
                f"found {_json_type(message)}"
            )
        where, items = "message.items", message.get("items")
    else:
        where, items = "items", document.get("items")
    if not isinstance(items, list):
        found = "nothing" if items is None else _json_type(items)
        raise BadLine(f"{path}: $.{where}: expected a list of works, found {found}")
    return where, items


def _whole_document(handle: IO[bytes], path: Path, limits: Limits) -> Any:
    """Return one {"items"} document, refusing it past the file size or nesting limits."""
    try:
        data = handle.read(limits.json_file_bytes + 1)
    except (EOFError, OSError, zlib.error) as exc:
        raise BadLine(f"{path}: {_unreadable(exc)}") from None
    if len(data) > limits.json_file_bytes:
        size = limits.describe("json_file_bytes", "bytes")
        raise BadLine(f"{path}: a single JSON document larger than {size}; use JSON lines")
    try:
        document = loads_bounded(drop_escaped_nul(data), limits.json_depth)
    except JsonTooDeep as exc:
        depth = limits.describe("json_depth", "levels")
        raise BadLine(f"{path}: {exc.where}: nested deeper than {depth}") from None
    except ValueError as exc:
        raise BadLine(f"{path}: not a JSON document: {exc}") from exc
    if not isinstance(document, dict):
        raise BadLine(f"{path}: expected a JSON object with 'items'")
    return document


def import_crossref_works(
    *,
    path: Path,
    batch_size: int = 5_000,
    keep_raw: bool = False,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Load Crossref works into the local DOI catalogue; bad items are reported and skipped.

    A bad item (a field of the wrong type, a year outside YEARS, a DOI longer than its column,
    a character PostgreSQL cannot store) is skipped with where it is and why; the items around
    it are stored.
    """
    report = ImportReport()
    batch: list[tuple[str, dict[str, Any]]] = []
    before = CrossrefWork.objects.count()
    limits = current_limits()

    def store(items: list[tuple[str, dict[str, Any]]]) -> int:
        return _store_crossref_fields([fields for _, fields in items])

    def refused(item: tuple[str, dict[str, Any]], why: str) -> None:
        report.note_bad(f"{item[0]}: the database refused it: {why}")

    def flush() -> None:
        if batch:
            report.updated += sum(_store_apart_from_refused(batch, store, refused))
            if progress:
                progress(len(batch))

    for where, item in _crossref_items(path, report):
        try:
            batch.append((where, crossref_fields(item, keep_raw, limits)))
        except BadLine as exc:
            report.note_bad(f"{where}: {exc}")
            continue
        if len(batch) >= batch_size:
            flush()
            batch = []
    flush()
    report.inserted = CrossrefWork.objects.count() - before
    if report.inserted or report.updated:
        settle_catalogue("crossref")
        refresh_title_words()
    report.updated -= report.inserted
    return report


def environment_batch_size(default: int) -> int:
    """Return the import batch size, overridable for benchmarks (CITEREC_IMPORT_BATCH)."""
    return int(os.environ.get("CITEREC_IMPORT_BATCH", default))
