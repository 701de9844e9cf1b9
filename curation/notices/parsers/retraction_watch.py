"""Stream the Retraction Watch CSV (as Crossref publishes it) into typed rows."""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from os import PathLike
from typing import IO, Final, Generic, Protocol, TypeVar

from curation.notice_events import (
    EventType,
    ReportedEvent,
    event_type_from_retraction_watch,
    severity_rank,
)
from curation.references.identifiers import arxiv_id_from_doi, canonical_doi

COLUMNS: Final[tuple[str, ...]] = (
    "Record ID",
    "Title",
    "Subject",
    "Institution",
    "Journal",
    "Publisher",
    "Country",
    "Author",
    "URLS",
    "ArticleType",
    "RetractionDate",
    "RetractionDOI",
    "RetractionPubMedID",
    "OriginalPaperDate",
    "OriginalPaperDOI",
    "OriginalPaperPubMedID",
    "RetractionNature",
    "Reason",
    "Paywalled",
    "Notes",
)
_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(COLUMNS)}
_MISSING_DOI: Final[frozenset[str]] = frozenset({"", "unavailable", "n/a", "na", "none"})
# Bytes that are not UTF-8 arrive as lone surrogates (errors="surrogateescape"),
# so the CSV parser still sees every comma, quote and newline where it is.
_ESCAPED_BYTES = re.compile("[\udc80-\udcff]+")
# Defaults of citerec's CITEREC_MAX_CSV_FILE_BYTES and CITEREC_MAX_CSV_FIELD_CHARS (the
# import command passes the settings; this module stays free of Django).
MAX_FILE_BYTES: Final = 512 << 20
MAX_FIELD_CHARS: Final = 65_536
# What a DOI is made of: Crossref's advice for modern DOIs ("-._;()/:", letters, digits) plus
# the few other characters real ones carry, and old Wiley SICI parts such as
# "<201::AID-JSO8>". Quotes, spaces, backslashes and markup never occur in one.
_SICI_PART = re.compile(r"<[^<>\s\"'\\]*::[^<>\s\"'\\]*>")
_DOI_CHARACTER = re.compile(r"[-._;()/:\w\[\]#+*%]")


class RetractionWatchFileError(ValueError):
    """The file as a whole cannot be read as a Retraction Watch CSV (nothing of it is stored)."""


class RetractionWatchHeaderError(RetractionWatchFileError):
    """The file does not start with the Retraction Watch header."""


@dataclass(frozen=True, slots=True)
class CsvLimits:
    """How large a Retraction Watch file and one of its cells may be, and the settings' names."""

    file_bytes: int = MAX_FILE_BYTES
    field_chars: int = MAX_FIELD_CHARS
    file_setting: str = "the file size limit"
    field_setting: str = "the field size limit"


DEFAULT_CSV_LIMITS: Final = CsvLimits()
# The columns that store a row (RetractionWatchRecord): ids are PostgreSQL integers, DOIs
# varchar(255); a value past them must be a row error, not a database error for the file.
_MAX_STORED_ID: Final = 2_147_483_647
_MAX_DOI_CHARS: Final = 255


@dataclass(frozen=True, slots=True)
class RowError:
    """A row that could not be read; the rest of the file still is."""

    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.field}: {self.message}"


@dataclass(frozen=True, slots=True)
class RetractionWatchRow:
    """One Retraction Watch record: a notice about one original paper."""

    line: int
    record_id: int
    title: str
    journal: str
    publisher: str
    article_types: tuple[str, ...]
    urls: tuple[str, ...]
    retraction_date: date | None
    notice_doi: str | None
    notice_pubmed_id: int | None
    original_date: date | None
    original_doi: str | None
    original_pubmed_id: int | None
    nature: EventType
    raw_nature: str
    reasons: tuple[str, ...]
    paywalled: bool | None
    redecoded: bool = False
    warnings: tuple[str, ...] = ()

    @property
    def paper_keys(self) -> tuple[str, ...]:
        """Return the identifiers of the original paper (`doi:...`, `pmid:...`)."""
        return paper_keys(self.original_doi, self.original_pubmed_id)

    def to_event(self) -> ReportedEvent | None:
        """Return the row as a notice event, or None when the paper has no DOI."""
        # citerec's canonical works are DOIs and arXiv ids; a PubMed-only row
        # cannot be attached to one, so it produces no event.
        if self.original_doi is None:
            return None
        return ReportedEvent(
            type=self.nature,
            source="retraction_watch",
            work_doi=self.original_doi,
            work_arxiv_id=arxiv_id_from_doi(self.original_doi),
            notice_doi=self.notice_doi,
            notice_url=None,
            date=self.retraction_date,
            reasons=self.reasons,
            source_record_id=str(self.record_id),
        )


def paper_keys(doi: str | None, pubmed_id: int | None) -> tuple[str, ...]:
    """Return the keys that identify an original paper: `doi:...` and `pmid:...`."""
    return tuple(key for key in (doi and f"doi:{doi}", pubmed_id and f"pmid:{pubmed_id}") if key)


class _FieldError(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def read_retraction_watch(
    path: str | PathLike[str], limits: CsvLimits = DEFAULT_CSV_LIMITS
) -> Iterator[RetractionWatchRow | RowError]:
    """Yield the rows (or row errors) of a Retraction Watch CSV file.

    A file larger than `limits.file_bytes` is refused (RetractionWatchFileError) unread.
    """
    size = os.stat(path).st_size
    if size > limits.file_bytes:
        raise RetractionWatchFileError(
            f"{path}: file of {size:,} bytes is larger than the limit of "
            f"{limits.file_bytes:,} bytes ({limits.file_setting})"
        )
    with open(path, "rb") as stream:
        yield from iter_retraction_watch(stream, name=str(path), limits=limits)


def iter_retraction_watch(
    stream: IO[bytes], *, name: str = "<stream>", limits: CsvLimits = DEFAULT_CSV_LIMITS
) -> Iterator[RetractionWatchRow | RowError]:
    """Yield the rows (or row errors) of a Retraction Watch CSV byte stream.

    A row with a cell over `limits.field_chars`, a NUL character or a DOI that is not one
    comes as a RowError naming its line and column; the rows after it are still read.
    """
    # The csv module refuses fields past its own process-wide limit (131,072 by default);
    # only ever raise it, so the check below decides and names the column.
    if csv.field_size_limit() <= limits.field_chars:
        csv.field_size_limit(limits.field_chars + 1)
    text = io.TextIOWrapper(stream, encoding="utf-8", errors="surrogateescape", newline="")
    try:
        lines = _RecordLines(text)
        reader = csv.reader(lines)
        _check_header(next(reader, None), name)
        last_line = reader.line_num
        while True:
            lines.start_record()
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield _csv_error(last_line + 1, exc, lines.record_text(), limits)
                last_line = reader.line_num
                continue
            # A quoted cell may span lines; report where the record starts.
            line, last_line = last_line + 1, reader.line_num
            if any(cell.strip() for cell in cells):
                yield _unstorable_cell(line, cells, limits) or _parse_row(line, cells)
    finally:
        # Leave a caller's stream open: closing the wrapper would close it.
        text.detach()


def _check_header(header: list[str] | None, name: str) -> None:
    expected = ",".join(COLUMNS)
    if header is None:
        raise RetractionWatchHeaderError(
            f"{name}: the file is empty; expected a Retraction Watch CSV with header {expected!r}"
        )
    found = [cell.strip().lstrip("\ufeff") for cell in header]
    while found and not found[-1]:
        found.pop()  # the current export ends its header with a comma
    if tuple(found) == COLUMNS:
        return
    missing = [c for c in COLUMNS if c not in found]
    unexpected = [c for c in found if c not in _INDEX]
    details = "; ".join(
        part
        for part in (
            f"missing {missing}" if missing else "",
            f"unexpected {unexpected}" if unexpected else "",
            "" if missing or unexpected else "columns out of order",
        )
        if part
    )
    raise RetractionWatchHeaderError(
        f"{name}: line 1: not a Retraction Watch CSV header ({details}); "
        f"expected {expected!r}, optionally with a trailing comma"
    )


class _RecordLines:
    """The file's lines as the csv reader takes them, keeping those of the current record.

    The csv module refuses a field past its own limit without saying which field; the lines
    it was reading tell (see _oversize_field). They are in memory anyway: the reader takes
    whole lines.
    """

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = iter(lines)
        self._record: list[str] = []

    def __iter__(self) -> _RecordLines:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self._record.append(line)
        return line

    def start_record(self) -> None:
        self._record.clear()

    def record_text(self) -> str:
        return "".join(self._record)


def _csv_error(line: int, exc: csv.Error, record: str, limits: CsvLimits) -> RowError:
    """Say why the csv module refused a record, naming the column of an oversize field."""
    if "field larger than field limit" not in str(exc):
        return RowError(line, "(row)", f"unreadable CSV: {exc}")
    limit = f"the limit of {limits.field_chars:,} characters ({limits.field_setting})"
    found = _oversize_field(record, limits.field_chars)
    if found is None:
        return RowError(line, "(row)", f"a field is longer than {limit}")
    position, length, whole = found
    column = COLUMNS[position] if position < len(COLUMNS) else f"field {position + 1}"
    # A field the reader stopped inside has no length to give, only that it is too long.
    return RowError(line, column, f"{length:,} characters, longer than {limit}" if whole
                    else f"longer than {limit}")  # fmt: skip


def _oversize_field(record: str, limit: int) -> tuple[int, int, bool] | None:
    """Return (position, length, whether the field ends in `record`) of its first field over
    `limit` characters, reading it as the csv module's default dialect does; else None."""
    position = length = 0
    quoted = False
    i, end = 0, len(record)
    while i < end:
        char = record[i]
        if quoted and char == '"' and record.startswith('""', i):
            length, i = length + 1, i + 2  # an escaped quote counts as one character
            continue
        if char == '"':
            quoted = not quoted
        elif quoted or char not in ",\r\n":
            length += 1
        elif length > limit:
            return position, length, True
        elif char == ",":
            position, length = position + 1, 0
        else:
            break  # the end of the record
        i += 1
    # Still inside quotes at the end: the field goes on past the lines read.
    return (position, length, not quoted) if length > limit else None


def _unstorable_cell(line: int, cells: list[str], limits: CsvLimits) -> RowError | None:
    """Return the error of a row with a cell too long to store or holding a NUL, else None."""
    for position, cell in enumerate(cells):
        column = COLUMNS[position] if position < len(COLUMNS) else f"field {position + 1}"
        if len(cell) > limits.field_chars:
            return RowError(
                line,
                column,
                f"{len(cell):,} characters, longer than the limit of {limits.field_chars:,} "
                f"characters ({limits.field_setting})",
            )
        nul = cell.find("\x00")
        if nul >= 0:
            # PostgreSQL text cannot hold NUL: one damaged row must not refuse the file.
            return RowError(line, column, f"contains a NUL byte at character {nul + 1}")
    return None


def _parse_row(line: int, cells: list[str]) -> RetractionWatchRow | RowError:
    redecoded = _ESCAPED_BYTES.search("\x1f".join(cells)) is not None
    if redecoded:
        cells = [_redecode(cell) for cell in cells]
    if len(cells) < len(COLUMNS) or any(c.strip() for c in cells[len(COLUMNS) :]):
        return RowError(line, "(row)", f"expected {len(COLUMNS)} fields, found {len(cells)}")
    warnings: list[str] = []
    if redecoded:
        warnings.append("bytes that are not UTF-8 were decoded as cp1252/latin-1")

    def cell(column: str) -> str:
        return cells[_INDEX[column]].strip()

    try:
        return RetractionWatchRow(
            line=line,
            record_id=_record_id(cell("Record ID")),
            title=cell("Title"),
            journal=cell("Journal"),
            publisher=cell("Publisher"),
            article_types=_split_list(cell("ArticleType")),
            urls=_split_list(cell("URLS")),
            retraction_date=_date("RetractionDate", cell("RetractionDate")),
            notice_doi=_doi("RetractionDOI", cell("RetractionDOI"), warnings),
            notice_pubmed_id=_pubmed_id("RetractionPubMedID", cell("RetractionPubMedID"), warnings),
            original_date=_date("OriginalPaperDate", cell("OriginalPaperDate")),
            original_doi=_doi("OriginalPaperDOI", cell("OriginalPaperDOI"), warnings),
            original_pubmed_id=_pubmed_id(
                "OriginalPaperPubMedID", cell("OriginalPaperPubMedID"), warnings
            ),
            nature=event_type_from_retraction_watch(cell("RetractionNature")),
            raw_nature=cell("RetractionNature"),
            reasons=_split_list(cell("Reason")),
            paywalled=_yes_no(cell("Paywalled")),
            redecoded=redecoded,
            warnings=tuple(warnings),
        )
    except _FieldError as exc:
        return RowError(line, exc.field, exc.message)


def _redecode(cell: str) -> str:
    """Return a cell with its non-UTF-8 bytes decoded as cp1252 (else latin-1)."""

    def decode(match: re.Match[str]) -> str:
        raw = match.group().encode("utf-8", "surrogateescape")
        try:
            return raw.decode("cp1252")
        except UnicodeDecodeError:  # five bytes have no cp1252 meaning
            return raw.decode("latin-1")

    return _ESCAPED_BYTES.sub(decode, cell)


def _record_id(text: str) -> int:
    if not text:
        raise _FieldError("Record ID", "missing")
    if not text.isascii() or not text.isdigit():
        raise _FieldError("Record ID", f"expected an integer, found {text[:40]!r}")
    if len(text) > 10 or int(text) > _MAX_STORED_ID:
        raise _FieldError("Record ID", f"{text[:40]} is larger than {_MAX_STORED_ID:,}")
    return int(text)


def _date(column: str, text: str) -> date | None:
    """Parse `8/16/2023 0:00` (the export's format) or `2023-08-16`; blank is None."""
    if not text:
        return None
    day_part = text.split(maxsplit=1)[0]
    try:
        if "/" in day_part:
            month, day, year = day_part.split("/")
            return date(int(year), int(month), int(day))
        return date.fromisoformat(day_part[:10])
    except ValueError:
        raise _FieldError(
            column, f"expected a date like 8/16/2023 0:00, found {text[:40]!r}"
        ) from None


def _doi(column: str, text: str, warnings: list[str]) -> str | None:
    if text.lower() in _MISSING_DOI:
        return None
    doi = canonical_doi(text)
    if doi is None:
        # One odd DOI must not cost the row its other facts.
        warnings.append(f"{column} {text[:80]!r} is not a DOI")
        return None
    if len(doi) > _MAX_DOI_CHARS:
        raise _FieldError(column, f"DOI of {len(doi):,} characters, longer than {_MAX_DOI_CHARS}")
    bad = _DOI_CHARACTER.sub("", _SICI_PART.sub("", doi.split("/", 1)[1]))
    if bad:
        # Shaped like a DOI but carrying quotes or markup: a damaged or hostile row.
        raise _FieldError(
            column, f"{text[:80]!r} is not a valid DOI ({bad[0]!r} cannot occur in one)"
        )
    return doi


def _pubmed_id(column: str, text: str, warnings: list[str]) -> int | None:
    if not text or text == "0":  # the export writes 0 for "no PubMed id"
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 10 or int(text) > _MAX_STORED_ID:
        warnings.append(f"{column} {text[:40]!r} is not a PubMed id")
        return None
    return int(text) or None


def _split_list(text: str) -> tuple[str, ...]:
    """Split a `;`-list, dropping the 2023 export's `+` prefixes and empty items."""
    return tuple(item for part in text.split(";") if (item := part.strip().lstrip("+").strip()))


def _yes_no(text: str) -> bool | None:
    return {"yes": True, "no": False}.get(text.lower())


class Notice(Protocol):
    """What the superseding rules read of a row: a CSV row or a stored record alike."""

    @property
    def record_id(self) -> int: ...
    @property
    def retraction_date(self) -> date | None: ...
    @property
    def nature(self) -> EventType: ...
    @property
    def paper_keys(self) -> tuple[str, ...]: ...


N = TypeVar("N", bound=Notice)


@dataclass(frozen=True, slots=True)
class PaperState(Generic[N]):
    """The current standing of one paper after all its rows are applied in order."""

    state: EventType
    decided_by: int
    rows: tuple[N, ...]


# A later row of one of these kinds replaces the paper's state whatever it was:
# an expression of concern upgraded to a retraction, a retraction reinstated.
_STANDING: Final[frozenset[EventType]] = frozenset(
    {EventType.RETRACTION, EventType.REMOVAL, EventType.WITHDRAWAL, EventType.REINSTATEMENT}
)


def superseding_state(rows_for_one_paper: Iterable[N]) -> PaperState[N] | None:
    """Return the paper's current state, applying its rows by retraction date then record id.

    A retraction, removal, withdrawal or reinstatement always replaces the state.
    A correction, partial retraction, expression of concern or other notice only
    replaces a state that is absent or no more severe: a correction published
    after a retraction leaves the paper retracted.
    """
    rows = tuple(
        sorted(rows_for_one_paper, key=lambda r: (r.retraction_date or date.min, r.record_id))
    )
    state: N | None = None
    for row in rows:
        if (
            state is None
            or row.nature in _STANDING
            or severity_rank(row.nature) <= severity_rank(state.nature)
        ):
            state = row
    if state is None:
        return None
    return PaperState(state=state.nature, decided_by=state.record_id, rows=rows)


def group_by_paper(rows: Iterable[N]) -> list[tuple[N, ...]]:
    """Group rows that concern the same paper (shared original DOI or PubMed id)."""
    # Union-find over identifiers: one row may name a paper by DOI and PubMed id
    # while another names it by only one of them.
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    keyed: list[tuple[str, N]] = []
    for row in rows:
        keys = row.paper_keys
        if not keys:
            continue  # nothing to attach it to
        for key in keys:
            parent.setdefault(key, key)
        for key in keys[1:]:
            parent[root(key)] = root(keys[0])
        keyed.append((keys[0], row))
    groups: dict[str, list[N]] = {}
    for key, row in keyed:
        groups.setdefault(root(key), []).append(row)
    return [tuple(group) for group in groups.values()]
