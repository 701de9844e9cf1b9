"""Crossref works as files come: one file, a folder of them, or a tar (Crossref's public data file).

The public data file is a tar (or its unpacked folder) of gzip'd `{"items": [...]}` files; a
file may also be JSON lines. Each file is read in pieces a worker process turns into COPY rows
(`read_piece`), so files parse in parallel while the parent only streams bytes to PostgreSQL:
a whole `{"items"}` document is one piece (the worker reads and parses it), and JSON lines come
in pieces of whole lines with their numbers. Nothing here writes: the import that stores the
rows and moves the checkpoints is curation.resolution.services.catalogue_imports.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import IO, Any

from curation.limits import Limits
from curation.resolution.catalogue_rows import (
    BadLine,
    UnreadableInput,
    crossref_document,
    crossref_fields,
    file_key,
    numbered_lines,
    parse_line,
    paused_gc,
    too_long,
    unreadable,
)

# The CrossrefWork columns an import writes (imported_at is set by the upsert).
CROSSREF_COLUMNS = (
    "doi", "title", "title_norm", "title_key", "container_title", "first_author", "authors",
    "type", "venue_key", "short_venue_key", "volume", "first_page", "issue",
    "year", "arxiv_versions", "updated_by", "update_to", "raw",
)  # fmt: skip

_JSON_COLUMNS = ("updated_by", "update_to", "raw")

# File names read from a folder or a tar: Crossref's are NNNN.json.gz; JSON lines may be there too.
_READ = (".json", ".jsonl", ".json.gz", ".jsonl.gz")


@dataclass(frozen=True)
class Source:
    """One file to import: a file of its own, a file of a folder, or a member of a tar."""

    name: str  # what a report names: the file's path, or "TAR:MEMBER"
    key: str  # its checkpoint's file_key
    path: Path  # the file itself, or the tar holding it
    data: bytes | None = None  # a tar member's bytes, as stored (gzip'd or not)

    def open(self) -> IO[bytes]:
        """Open the file for reading its (uncompressed) bytes."""
        raw: IO[bytes] = io.BytesIO(self.data) if self.data is not None else self.path.open("rb")
        if self.name.endswith(".gz"):
            return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
        return raw


def set_key(path: Path) -> str | None:
    """Return the checkpoint key of a folder or tar as a whole, or None for a single file."""
    if path.is_dir():
        return f"{path.resolve()}/"
    if tarfile.is_tarfile(path):
        return file_key(path)
    return None


def sources(path: Path) -> Iterator[Source]:
    """Yield the files of `path` in name order: itself, a folder's files, or a tar's members.

    A tar is streamed (it may be gzip'd as a whole, so it cannot be seeked): each member is read
    when it is reached, and only members still to import are held, one at a time.
    """
    if path.is_dir():
        folder = path.resolve()
        for file in sorted(p for p in folder.rglob("*") if p.is_file() and _readable(p.name)):
            stat = file.stat()
            key = f"{folder}/!{file.relative_to(folder)}:{stat.st_size}:{int(stat.st_mtime)}"
            yield Source(name=str(file), key=key, path=file)
    elif tarfile.is_tarfile(path):
        whole = file_key(path)
        with tarfile.open(path, "r|*") as archive:
            for member in archive:
                if member.isfile() and _readable(member.name):
                    handle = archive.extractfile(member)
                    data = handle.read() if handle is not None else b""
                    key = f"{whole}!{member.name}"
                    yield Source(name=f"{path}:{member.name}", key=key, path=path, data=data)
    else:
        yield Source(name=str(path), key=file_key(path), path=path)


def _readable(name: str) -> bool:
    return name.endswith(_READ) and not name.rsplit("/", 1)[-1].startswith(".")


def is_document(source: Source) -> bool:
    """Tell a whole {"items"} document from JSON lines by the first 64 KiB."""
    head = b""
    with source.open() as handle:
        try:
            while len(head) < 1 << 16 and (chunk := handle.read(1 << 12)):
                head += chunk
        except (EOFError, OSError, zlib.error):
            pass  # reading again reports it, with the line it reached
    stripped = head.lstrip()
    return stripped.startswith(b"{") and (b'"items"' in head) and b"\n{" not in stripped


@dataclass(frozen=True)
class Piece:
    """Work for one worker: a whole document, or some numbered JSON lines of a file."""

    source: Source
    limits: Limits
    keep_raw: bool
    skip: int = 0  # a document: the items a previous run stored already
    lines: list[tuple[int, bytes | str]] | None = None  # (number, line or why it was not read)
    line: int = 0  # JSON lines: the number and byte offset after the last line of the piece
    offset: int = 0
    last: bool = False  # the file's last piece (its checkpoint is then finished)
    stopped: str | None = None  # why the file could not be read past this piece


@dataclass
class PieceRows:
    """What a worker made of a piece: COPY rows with where each came from, and skipped items."""

    rows: list[tuple[str, int, bytes]] = field(default_factory=list)  # (where, item, row)
    bad: list[str] = field(default_factory=list)
    read: int = 0
    items: int = 0  # a document: how many items it holds
    refused: str | None = None  # a document refused whole (wrong shape, unreadable, too big)


def line_pieces(
    source: Source, handle: IO[bytes], start: tuple[int, int], size: int, limits: Limits,
    keep_raw: bool,
) -> Iterator[Piece]:  # fmt: skip
    """Yield a JSON lines file in pieces of `size` lines, from (line, byte offset) `start`."""
    line, offset = start
    lines: list[tuple[int, bytes | str]] = []
    previous = offset
    try:
        for number, end, text in numbered_lines(handle, line, source.path, limits.line_bytes):
            length, previous = end - previous, end
            lines.append((number, text if text is not None else too_long(length, limits)))
            line, offset = number, end
            if len(lines) >= size:
                yield Piece(source, limits, keep_raw, lines=lines, line=line, offset=offset)
                lines = []
    except UnreadableInput as exc:
        # numbered_lines names the tar, not the member: say which file stopped.
        where = str(exc).replace(f"{source.path}: ", f"{source.name}: ", 1)
        yield Piece(source, limits, keep_raw, lines=lines, line=line, offset=offset, stopped=where)
        return
    yield Piece(source, limits, keep_raw, lines=lines, line=line, offset=offset, last=True)


def read_piece(piece: Piece) -> PieceRows:
    """Parse a piece and check each work: COPY rows of the good ones, the bad ones by place.

    Runs in a worker process, with the garbage collector paused (`paused_gc` says why).
    """
    with paused_gc():
        if piece.lines is None:
            return _read_document(piece)
        return _read_lines(piece)


def _read_lines(piece: Piece) -> PieceRows:
    result = PieceRows()
    name = piece.source.name
    for number, line in piece.lines or ():
        if isinstance(line, str):
            result.read += 1
            result.bad.append(f"{name}:{number}: {line}")
            continue
        if not line.strip():
            continue
        result.read += 1
        where = f"{name}:{number}"
        try:
            work = parse_line(line, piece.limits)
            fields = crossref_fields(work, piece.keep_raw, piece.limits, storable=True)
        except BadLine as exc:
            result.bad.append(f"{where}: {exc}")
            continue
        except ValueError as exc:
            result.bad.append(f"{where}: not JSON: {exc}")
            continue
        result.rows.append((where, number, copy_row(fields)))
    return result


def _read_document(piece: Piece) -> PieceRows:
    result = PieceRows()
    name = piece.source.name
    try:
        with piece.source.open() as handle:
            where, items, storable = crossref_document(handle, name, piece.limits, piece.keep_raw)
    except BadLine as exc:
        result.refused = str(exc)
        return result
    except (EOFError, OSError, zlib.error) as exc:
        result.refused = f"{name}: {unreadable(exc)}"
        return result
    result.items = len(items)
    for index in range(piece.skip, len(items)):
        result.read += 1
        place = f"{name}: {where}[{index}]"
        try:
            fields = crossref_fields(items[index], piece.keep_raw, piece.limits, storable)
        except BadLine as exc:
            result.bad.append(f"{place}: {exc}")
            continue
        result.rows.append((place, index, copy_row(fields)))
    return result


# --- COPY text format ----------------------------------------------------------------------
_ESCAPE = re.compile(r"[\\\t\n\r]")
_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _copy_text(text: str) -> str:
    """Escape a value for COPY's text format (most values need nothing)."""
    if _ESCAPE.search(text) is None:
        return text
    return _ESCAPE.sub(lambda m: _ESCAPES[m.group()], text)


def _array(values: list[str]) -> str:
    """Write a text[] literal: every element quoted, its quotes and backslashes escaped."""
    quoted = (v.replace("\\", "\\\\").replace('"', '\\"') for v in values)
    return "{" + ",".join(f'"{v}"' for v in quoted) + "}"


def copy_row(fields: dict[str, Any]) -> bytes:
    """Return one crossref_fields row as a line of COPY text, in CROSSREF_COLUMNS order.

    JSON columns are written with json.dumps, as Django's JSONField writes them, so a work
    stores the same jsonb whichever path brought it.
    """
    texts: tuple[str, ...] = _texts(fields)
    line = "\t".join(texts)
    # Nearly every row needs no escape (whitespace is collapsed in every text field but the
    # DOI): a few scans of the line in C instead of a search of each value.
    if line.count("\t") != _TABS or "\\" in line or "\n" in line or "\r" in line:
        line = "\t".join(map(_copy_text, texts))
    year, versions = fields["year"], fields["arxiv_versions"]
    return "\t".join((
        line,
        "\\N" if year is None else str(year),
        _copy_text(_array(versions)) if versions else "{}",
        *(_copy_json(fields[column]) for column in _JSON_COLUMNS),
    )).encode()  # fmt: skip


def _copy_json(value: Any) -> str:
    if value is None:
        return "\\N"
    return "[]" if value == [] else _copy_text(json.dumps(value))


# crossref_fields' text columns (never null), then year, arxiv_versions and the JSON columns:
# CROSSREF_COLUMNS is that order.
_TEXT_COLUMNS = CROSSREF_COLUMNS[: CROSSREF_COLUMNS.index("year")]
_texts = itemgetter(*_TEXT_COLUMNS)
_TABS = len(_TEXT_COLUMNS) - 1
