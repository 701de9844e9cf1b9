"""Catalogue input, line by line: an arXiv snapshot line or a Crossref work, checked and made a row.

Every line is checked before it joins a batch (types of the fields used, identifiers against
their column sizes, smallint ranges, years, characters PostgreSQL cannot store), so one bad
line is skipped with its file:line and reason and never rolls back the good lines of its
batch. Nothing here writes: the imports that store the rows are
curation.resolution.services.catalogue_imports.
"""

from __future__ import annotations

import gc
import gzip
import re
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

import orjson
from orjson import loads as _loads  # about three times faster than json.loads on snapshot lines

from curation.catalogue.text import fold_name, title_norm
from curation.catalogue.versions import relation_versions
from curation.limits import (
    JsonTooDeep,
    Limits,
    container_too_deep,
    drop_escaped_nul,
    loads_bounded,
    nests_within,
    read_line,
    walk,
)
from curation.models import Paper
from curation.references import normalize_title
from curation.references.identifiers import doi_key
from curation.resolution.crossref_decode import CrossrefAuthor, CrossrefItem, decode_items
from curation.resolution.models import CrossrefWork
from curation.resolution.venues import first_page, page_key, parse_journal_ref, venue_key

_MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}

_WITHDRAWN = ("this paper has been withdrawn", "withdrawn by", "paper withdrawn")


PAPER_COLUMNS = (
    "arxiv_id", "title", "authors", "doi", "categories", "primary_category", "latest_version",
    "submitted_at", "last_updated", "journal_ref", "comments", "first_author", "year",
    "title_norm", "title_key", "withdrawn",
)  # fmt: skip

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


@contextmanager
def paused_gc() -> Iterator[None]:
    """Keep the cyclic garbage collector off while catalogue lines are parsed into rows.

    Parsing makes hundreds of thousands of small containers and nothing cyclic, and the
    collector's passes over them cost more than the parse itself: a snapshot line 74 µs of CPU
    with it, 30 without; orjson on a Crossref work 39 µs with it, 12 without.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


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


def json_type(value: Any) -> str:
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


def _text(value: Any, name: str, *where: int) -> str:
    """Return a string field with its whitespace collapsed ("" for null or absent).

    Any other type is refused by name (`name` formatted with `where`, only then: an author
    list's field names would otherwise be written for every author of millions of works):
    str() of a list or an object would store its Python form as if it were the title.
    """
    if value is None:
        return ""
    if not isinstance(value, str):
        field_name = name.format(*where) if where else name
        raise BadLine(f"field {field_name!r}: expected a string, found {json_type(value)}")
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


def arxiv_row(
    item: Any, limits: Limits = DEFAULT_LIMITS, storable: bool = False
) -> tuple[Any, ...]:
    """Return the curation_paper row of one snapshot object; raise BadLine naming the field.

    `storable`: the object was parsed by parse_line, so it holds no character PostgreSQL
    cannot store (see _check_storable), and the check is skipped (3 µs a line).
    """
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
    # Only the first version's time and the last's are kept.
    dated = [v for v in versions if isinstance(v, dict)]
    submitted = _version_time(str(dated[0].get("created", ""))) if dated else None
    last = _version_time(str(dated[-1].get("created", ""))) if len(dated) > 1 else submitted
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
        arxiv_id, title, authors, doi_key(doi)[:255],
        categories[:255], categories.split(" ")[0][:64] or None, len(versions) or None,
        submitted, last, journal_ref, comments, _first_surname(item, authors), year,
        norm, norm.replace(" ", "")[:255], any(w in comments.lower() for w in _WITHDRAWN),
        *_locator_columns(journal_ref),
    )  # fmt: skip
    if not storable:
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


LOCATOR_COLUMNS = ("venue_key", "volume", "first_page", "locator_year")


def _check_title(title: str, limits: Limits) -> None:
    if len(title) > limits.string_chars:
        raise BadLine(
            f"field 'title': {len(title):,} characters, longer than "
            f"{limits.describe('string_chars', 'characters')}"
        )


def numbered_lines(
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
            raise UnreadableInput(f"{path}: line {number + 1}: {unreadable(exc)}") from None
        if not length:
            return
        number += 1
        offset += length
        yield number, offset, line


def unreadable(exc: BaseException) -> str:
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
    # Fewer brackets than the limit cannot nest past it (a snapshot line, counted in half the
    # time nests_within takes); the others are mostly cleared from their bytes: few are walked.
    if line.count(b"[") + line.count(b"{") > limits.json_depth and not nests_within(
        line, limits.json_depth
    ):
        path = container_too_deep(value, limits.json_depth)
        if path is not None:
            raise BadLine(f"{path}: nested deeper than {depth}")
    return value


def too_long(length: int, limits: Limits) -> str:
    return f"line of {length:,} bytes is longer than {limits.describe('line_bytes', 'bytes')}"


def load_tables() -> None:
    """Load the tables making rows reads lazily (INSPIRE's journal list, ISO 4's word list).

    Called before worker processes fork, so that they share one copy: each would otherwise
    load its own, about a second of CPU, for every import.
    """
    venue_key("Physical Review D")
    parse_journal_ref("Phys. Rev. D 65 (2002) 094516")


# --- arXiv snapshot in pieces ------------------------------------------------------------
@dataclass(frozen=True)
class SnapshotPiece:
    """Numbered lines of a snapshot for a worker to make rows of, and where they end."""

    path: Path
    limits: Limits
    lines: list[tuple[int, bytes | str]]  # (number, line or why it was not read)
    line: int  # the number and byte offset after the piece's last line
    offset: int
    last: bool = False  # the file's last piece (its checkpoint is then finished)
    stopped: str | None = None  # why the file could not be read past this piece


@dataclass
class SnapshotRows:
    """What a worker made of a piece: numbered arxiv_row rows, and the skipped lines."""

    rows: list[tuple[Any, ...]] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)


def snapshot_pieces(
    handle: IO[bytes], path: Path, start: tuple[int, int], size: int, limits: Limits
) -> Iterator[SnapshotPiece]:
    """Yield a snapshot in pieces of `size` lines, from (line, byte offset) `start`."""
    line, offset = start
    lines: list[tuple[int, bytes | str]] = []
    previous = offset
    try:
        for number, end, text in numbered_lines(handle, line, path, limits.line_bytes):
            length, previous = end - previous, end
            lines.append((number, text if text is not None else too_long(length, limits)))
            line, offset = number, end
            if len(lines) >= size:
                yield SnapshotPiece(path, limits, lines, line, offset)
                lines = []
    except UnreadableInput as exc:
        yield SnapshotPiece(path, limits, lines, line, offset, stopped=str(exc))
        return
    yield SnapshotPiece(path, limits, lines, line, offset, last=True)


def read_snapshot_piece(piece: SnapshotPiece) -> SnapshotRows:
    """Parse and check a piece's lines: rows of the good ones, the bad ones by file:line.

    Runs in a worker process (or in the importing one), the garbage collector paused.
    """
    result = SnapshotRows()
    with paused_gc():
        for number, line in piece.lines:
            if isinstance(line, str):
                result.bad.append(f"{piece.path}:{number}: {line}")
                continue
            if not line.strip():
                continue
            try:
                item = parse_line(line, piece.limits)
                result.rows.append((number, *arxiv_row(item, piece.limits, storable=True)))
            except BadLine as exc:
                result.bad.append(f"{piece.path}:{number}: {exc}")
            except ValueError as exc:
                result.bad.append(f"{piece.path}:{number}: not JSON: {exc}")
    return result


# --- Crossref works ----------------------------------------------------------------------
_DATES = ("issued", "published-print", "published-online", "published", "created")


# A work as parsed: a dict (orjson, json, the Crossref API) or its kept fields (crossref_decode).
Work = dict[str, Any] | CrossrefItem

# Journal names repeat across millions of works (about 100,000 journals in all Crossref):
# their keys are remembered instead of worked out twice a work (3 µs).
_venue_key = lru_cache(maxsize=1 << 16)(venue_key)


def _first(work: Work, name: str) -> str:
    """Return a Crossref text field that is a list of strings (title) or a string: the first."""
    value = work.get(name)
    if isinstance(value, list):
        return _text(value[0], f"{name}[0]") if value else ""
    return _text(value, name)


def _issued_year(work: Work) -> int | None:
    """Return the year of the first date Crossref gives, or None; refuse a malformed date."""
    for name in _DATES:
        date = work.get(name)
        if date is None:
            continue
        if not isinstance(date, dict):
            raise BadLine(
                f"field {name!r}: expected an object with 'date-parts', found {json_type(date)}"
            )
        parts = date.get("date-parts") or []
        if not isinstance(parts, list) or (parts and not isinstance(parts[0], list)):
            raise BadLine(f"field '{name}.date-parts': expected a list of [year, month, day]")
        year = parts[0][0] if parts and parts[0] else None
        if year is None:
            continue  # Crossref's "no date": [[null]]
        if not isinstance(year, int) or isinstance(year, bool):
            raise BadLine(f"field '{name}.date-parts': expected a year, found {json_type(year)}")
        _check_year(year, f"{name}.date-parts")
        return year
    return None


def _author_names(work: Work) -> list[str]:
    authors = work.get("author")
    if authors is None:
        return []
    if not isinstance(authors, list):
        raise BadLine(
            f"field 'author': expected a list of author objects, found {json_type(authors)}"
        )
    return [
        _text(author.get("family"), "author[{}].family", i)
        or _text(author.get("name"), "author[{}].name", i)
        for i, author in enumerate(authors)
        if isinstance(author, dict | CrossrefAuthor)
    ]


def _list(work: Work, name: str) -> list[Any]:
    value = work.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadLine(f"field {name!r}: expected a list, found {json_type(value)}")
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
    work: Any, keep_raw: bool = False, limits: Limits | None = None, storable: bool = False
) -> dict[str, Any]:
    """Return the CrossrefWork fields of one work object; raise BadLine naming the field.

    With `limits` (a file import), a title over the string limit is refused too. `storable`:
    the work was parsed by orjson from text without escaped NULs (parse_line, or
    crossref_document when it says so), so it holds no string PostgreSQL cannot store: orjson
    refuses a raw NUL and a lone surrogate, and the check costs a file import about 6 µs of CPU
    per work.
    """
    if not isinstance(work, dict | CrossrefItem):
        raise BadLine("expected a Crossref work object")
    doi = work.get("DOI")
    if not isinstance(doi, str) or not doi.startswith("10."):
        raise BadLine("field 'DOI': expected a DOI string starting with '10.'")
    doi = doi_key(doi)
    if len(doi) > DOI_CHARS:
        raise BadLine(
            f"field 'DOI': {len(doi)} characters, longer than the {DOI_CHARS} a DOI is stored in"
        )
    if not storable and isinstance(work, dict):  # crossref_decode's works are storable
        _check_storable_json(work)
    title = _first(work, "title")
    if limits is not None:
        _check_title(title, limits)
    names = _author_names(work)
    # Titles are unique in a catalogue: title_norm's memory would only be churned by them.
    norm = normalize_title(title)
    container = _first(work, "container-title")
    page = first_page(_text(work.get("page"), "page")) or page_key(
        _text(work.get("article-number"), "article-number")
    )
    return {
        "doi": doi,
        "title": title,
        "title_norm": norm,
        "title_key": norm.replace(" ", "")[:255],
        "container_title": container,
        "first_author": fold_name(names[0])[:128] if names else "",
        "authors": ", ".join(n for n in names if n),
        "year": _issued_year(work),
        "type": _text(work.get("type"), "type")[:64],
        "updated_by": _list(work, "updated-by"),
        "update_to": _list(work, "update-to"),
        "raw": work if keep_raw else None,
        "arxiv_versions": relation_versions(doi, work),
        # Where it was published: journal keys, volume, first page, issue.
        "venue_key": _venue_key(container),
        "short_venue_key": _venue_key(_first(work, "short-container-title")),
        "volume": page_key(_text(work.get("volume"), "volume")),
        "first_page": page,
        "issue": _text(work.get("issue"), "issue").strip()[:32],
    }


def crossref_document(
    handle: IO[bytes], name: str, limits: Limits, whole: bool = False
) -> tuple[str, list[Any], bool]:
    """Return where the works are ("items" or "message.items"), the works of one document, and
    whether they are `storable` (see crossref_fields): parsed by orjson or msgspec.

    Unless `whole` works are wanted (to keep their JSON), a plain {"items"} document comes as
    the fields the catalogue keeps (crossref_decode); any other as parsed. A document of the
    wrong shape, too large or nested too deep is refused whole (BadLine).
    """
    data = _document_bytes(handle, name, limits)
    if not whole and nests_within(data, limits.json_depth):
        items = decode_items(data)
        if items is not None:
            return "items", items, True
    document, by_orjson = _whole_document(data, name, limits)
    return (*_document_items(document, name), by_orjson)


def _document_items(document: dict[str, Any], path: str) -> tuple[str, list[Any]]:
    """Return where the works are and the works of a {"items"} or {"message": {"items"}} file.

    A Crossref API answer holds its works in "message"; a file of ours at the top. A document
    of neither shape is refused whole, naming the JSON path that is wrong.
    """
    if "message" in document:
        message = document["message"]
        if not isinstance(message, dict):
            raise BadLine(
                f"{path}: $.message: expected an object with an 'items' list, "
                f"found {json_type(message)}"
            )
        where, items = "message.items", message.get("items")
    else:
        where, items = "items", document.get("items")
    if not isinstance(items, list):
        found = "nothing" if items is None else json_type(items)
        raise BadLine(f"{path}: $.{where}: expected a list of works, found {found}")
    return where, items


def _document_bytes(handle: IO[bytes], path: str, limits: Limits) -> bytes:
    """Return a document's bytes without escaped NULs; refuse it past the file size limit."""
    try:
        data = handle.read(limits.json_file_bytes + 1)
    except (EOFError, OSError, zlib.error) as exc:
        raise BadLine(f"{path}: {unreadable(exc)}") from None
    if len(data) > limits.json_file_bytes:
        size = limits.describe("json_file_bytes", "bytes")
        raise BadLine(f"{path}: a single JSON document larger than {size}; use JSON lines")
    return drop_escaped_nul(data)


def _whole_document(data: bytes, path: str, limits: Limits) -> tuple[Any, bool]:
    """Return one {"items"} document and whether orjson parsed it; refuse it past the nesting
    limit."""
    try:
        document, by_orjson = _loads_document(data, limits.json_depth)
    except JsonTooDeep as exc:
        depth = limits.describe("json_depth", "levels")
        raise BadLine(f"{path}: {exc.where}: nested deeper than {depth}") from None
    except ValueError as exc:
        raise BadLine(f"{path}: not a JSON document: {exc}") from exc
    if not isinstance(document, dict):
        raise BadLine(f"{path}: expected a JSON object with 'items'")
    return document, by_orjson


def _loads_document(data: bytes, depth: int) -> tuple[Any, bool]:
    """Parse a whole document: orjson when it can (2-3 times json.loads), else loads_bounded.

    orjson refuses what json.loads reads (a lone surrogate, NaN, an integer past 64 bits, 1,024
    levels); loads_bounded reads those as before, so a document parses to the same values.
    Also says which parsed it (True: orjson).
    """
    try:
        document = _loads(data)
    except ValueError:
        return loads_bounded(data, depth), False
    if nests_within(data, depth):
        return document, True
    path = container_too_deep(document, depth)
    if path is not None:
        raise JsonTooDeep(path, depth)
    return document, True
