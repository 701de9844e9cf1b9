"""Size and depth limits for every import, in one place.

Each limit is a setting `CITEREC_MAX_<NAME>`, read from the environment variable of that name
by citerec/settings.py (README "Settings"), its default here. Imports check
sizes before they parse, so a hostile file is refused without being held in memory several
times, and every refusal names the file, the line or JSON path, and the limit with its setting.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import IO, Any

MB = 1 << 20


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits in force; each field is the setting `CITEREC_MAX_<FIELD NAME IN CAPITALS>`."""

    json_file_bytes: int = 50 * MB  # one record file, one Crossref {"items"} file
    string_chars: int = 20_000  # any string in a record; a catalogue title
    json_depth: int = 64  # nesting of arrays and objects (the sample record needs 6)
    reference_file_bytes: int = 20 * MB  # one reference list
    reference_chars: int = 8_192  # one reference's text; longer ones keep their head, flagged
    line_bytes: int = 1 * MB  # one line of the arXiv snapshot or of Crossref JSON lines
    csv_file_bytes: int = 512 * MB  # one Retraction Watch CSV (about 60 MB in 2026)
    csv_field_chars: int = 65_536  # one Retraction Watch CSV cell
    source_members: int = 5_000  # files in one e-print archive
    source_bytes: int = 200 * MB  # one e-print, uncompressed
    source_member_bytes: int = 50 * MB  # one file of an e-print, uncompressed
    source_ratio: int = 200  # uncompressed bytes per compressed byte (gzip bombs)
    source_references: int = 10_000  # references read from one e-print; the rest, a warning

    @classmethod
    def defaults(cls) -> dict[str, int]:
        """Return each limit's default by the name of its setting."""
        return {cls.setting(spec.name): spec.default for spec in fields(cls)}  # type: ignore[misc]

    @staticmethod
    def setting(name: str) -> str:
        """Return the setting (and environment variable) that sets the limit `name`."""
        return f"CITEREC_MAX_{name.upper()}"

    def describe(self, name: str, unit: str) -> str:
        """Return "the limit of 20,000 characters (CITEREC_MAX_STRING_CHARS)" for `name`."""
        return f"the limit of {getattr(self, name):,} {unit} ({self.setting(name)})"


def current_limits() -> Limits:
    """Return the limits from the settings (read on each call, so tests can change them)."""
    from django.conf import settings  # lazily: settings import this module (its defaults)

    values = {}
    for spec in fields(Limits):
        value = getattr(settings, Limits.setting(spec.name))
        if value < 1:
            raise ValueError(f"{Limits.setting(spec.name)}={value} must be at least 1")
        values[spec.name] = value
    return Limits(**values)


class InputTooLarge(ValueError):
    """A file or line over its size limit (the message names the limit and its setting)."""


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """Return a file's bytes, refusing it unread when it is longer than `limit` bytes.

    The size is checked before reading; the read stops one byte past the limit all the same,
    so a file that grows meanwhile (or a device) is never read whole.
    """
    size = path.stat().st_size
    if size > limit:
        raise InputTooLarge(f"file of {size:,} bytes is larger than {what}")
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputTooLarge(f"file is larger than {what}")
    return data


def read_line(handle: IO[bytes], limit: int) -> tuple[bytes | None, int]:
    """Return the next line and its length in bytes: (b"", 0) at the end of the input.

    A line longer than `limit` bytes (not counting its line end) is consumed to its end in
    bounded pieces and returned as None with its length, so one runaway line (a snapshot
    without newlines) never fills memory.
    """
    line = handle.readline(limit + 1)
    if len(line) <= limit or line.endswith(b"\n"):
        return line, len(line)
    length = len(line)
    while True:
        piece = handle.readline(MB)
        length += len(piece)
        if not piece or piece.endswith(b"\n"):
            return None, length


# An escaped NUL ("\\u0000") whose backslash is not itself escaped: PostgreSQL text and jsonb
# cannot hold NUL, and a catalogue line loses nothing by dropping it.
_ESCAPED_NUL = re.compile(rb"(?<!\\)((?:\\\\)*)\\u0000")


def drop_escaped_nul(line: bytes) -> bytes:
    """Return a JSON line without its escaped NUL characters (unchanged when it has none)."""
    if b"\\u0000" not in line:
        return line
    return _ESCAPED_NUL.sub(rb"\1", line)


# --- JSON ------------------------------------------------------------------------------------

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class JsonTooDeep(ValueError):
    """A JSON document nested deeper than allowed; `where` is a JSON path or "line L column C"."""

    def __init__(self, where: str, limit: int) -> None:
        super().__init__(f"nested deeper than {limit} levels")
        self.where = where


def too_deep_at(text: str, limit: int) -> tuple[int, int] | None:
    """Return (line, column) where JSON text first nests deeper than `limit`, else None.

    Used when the parser itself gave up (RecursionError), so there is no value to walk; the
    scan stops at the first offending bracket.
    """
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                start = match.start()
                line = text.count("\n", 0, start) + 1
                return line, start - (text.rfind("\n", 0, start) + 1) + 1
        elif token in "]}":
            depth -= 1
    return None


def walk(value: Any) -> Iterator[tuple[str, Any, int]]:
    """Yield (JSON path, value, depth) for a parsed value and everything in it, in order.

    Iterative, so a deep value never exhausts Python's stack; a container's depth counts
    itself (a top-level object is depth 1, a string inside it depth 2).
    """
    stack: list[tuple[str, Any, int]] = [("$", value, 1)]
    while stack:
        path, item, depth = stack.pop()
        yield path, item, depth
        if isinstance(item, dict):
            stack.extend(
                (f"{path}.{key}", child, depth + 1) for key, child in reversed(item.items())
            )
        elif isinstance(item, list):
            stack.extend(
                (f"{path}[{i}]", child, depth + 1) for i, child in reversed(list(enumerate(item)))
            )


def container_too_deep(value: Any, limit: int) -> str | None:
    """Return the JSON path of the first array or object deeper than `limit`, else None."""
    if not _nests_past(value, limit):
        return None  # the walk below names paths: 70 µs a Crossref work, this 4
    for path, item, depth in walk(value):
        if depth > limit and isinstance(item, dict | list):
            return path
    return None


def loads_bounded(text: str | bytes, limit: int) -> Any:
    """Parse JSON, raising JsonTooDeep (never RecursionError) past `limit` levels of nesting.

    json.JSONDecodeError passes through for text that is not JSON.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        source = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        found = too_deep_at(source, limit)
        where = f"line {found[0]} column {found[1]}" if found else "$"
        raise JsonTooDeep(where, limit) from None
    # Fewer brackets than the limit cannot nest past it: most lines skip the walk.
    if _may_nest_past(text, limit):
        path = container_too_deep(value, limit)
        if path is not None:
            raise JsonTooDeep(path, limit)
    return value


def _nests_past(value: Any, limit: int) -> bool:
    """Tell whether an array or object inside `value` is deeper than `limit` (no paths made)."""
    if not isinstance(value, dict | list):
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return False


def _may_nest_past(text: str | bytes, limit: int) -> bool:
    if isinstance(text, bytes):
        return not nests_within(text, limit)
    return text.count("[") + text.count("{") > limit


# bytes.translate keeps of JSON text the bytes that delimit strings and containers, the two
# kinds of container made one (depth is all that is asked, of text a parser accepted).
_CONTAINERS = bytes.maketrans(b"{}", b"[]")
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')


def nests_within(text: bytes, limit: int) -> bool:
    """Tell cheaply (in C, from the bytes) that parsed JSON text nests no deeper than `limit`.

    For text a parser accepted already. False means deeper: walk the parsed value to say where.
    Counting brackets is not enough (an author list alone has dozens), and walking a parsed
    Crossref work cost about 10 µs of the import's CPU per work; this costs about a third.
    Escaped backslashes, then escaped quotes, go first (pairs left to right, as JSON reads
    them), so every remaining quote delimits a string. Of the quotes and brackets left, two
    adjacent quotes go (an empty string, or one string's end and the next one's start: either
    way the quotes after them still alternate), then what is still between quotes (a string
    holding brackets, rare). The brackets left are the containers; each pass of the loop
    removes the innermost ones, one level: empty within `limit` passes is at most `limit` deep.
    """
    if b"\\" in text:
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    brackets = text.translate(_CONTAINERS, _NOT_STRUCTURE).replace(b'""', b"")
    if b'"' in brackets:
        brackets = b"".join(brackets.split(b'"')[::2])
    for _ in range(limit):
        if not brackets:
            return True
        brackets = brackets.replace(b"[]", b"")
    return not brackets


# --- Jobs whose worker was killed ----------------------------------------------------------
# A job whose last takes never ended (the worker was killed: out of memory, past its hard time
# limit) this many times in a row is failed, or read one paper at a time, instead of delivered
# again: acks_late would otherwise hand a poison job to worker after worker. Papers, resolution
# chunks and bundle chunks count their takes against this one number.
MAX_INTERRUPTED = 2


def killed_worker_reason(count: int, takes: str, retry: str) -> str:
    """Say why a job is not taken again after `count` `takes` whose worker was killed."""
    from django.conf import settings  # lazily: pure readers import limits without Django

    return (
        f"{count} {takes} in a row never ended: the worker was killed (out of memory, or past "
        f"the hard time limit of {settings.CELERY_TASK_TIME_LIMIT} s, CELERY_TASK_TIME_LIMIT); "
        f"{retry}"
    )
