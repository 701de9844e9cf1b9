"""Read a BibTeX database the way BibTeX does: entries, @string macros, # concatenation."""

from __future__ import annotations

import re
from dataclasses import dataclass

_AT = re.compile(r"@\s*([A-Za-z]+)\s*([{(])")
_BRACE = re.compile(r"[{}]")
_NAME = re.compile(r"\s*([^\s=,{}\"#%()]+)\s*")
_TOKEN = re.compile(r"\s*([A-Za-z0-9_:.+/'-]+)")
# Lines commented out with "%" inside an entry: BibTeX would choke on them; authors mean them
# as removed, so they are dropped before the fields are read.
_COMMENTED_LINE = re.compile(r"^[ \t]*%[^\n]*\n?", re.MULTILINE)
_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()


@dataclass(frozen=True, slots=True)
class BibEntry:
    """One database entry: its fields' LaTeX values by lower-cased name (macros expanded)."""

    key: str
    entry_type: str
    fields: dict[str, str]


def _close(text: str, start: int, opener: str) -> int:
    """Return the index after the body opened at text[start] (braces nest; "(" ends at ")")."""
    depth = 0
    if opener == "{":
        for m in _BRACE.finditer(text, start):
            depth += 1 if m[0] == "{" else -1
            if depth == 0:
                return m.end()
        return len(text)
    i = start + 1
    while i < len(text):
        char = text[i]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == ")" and depth <= 0:
            return i + 1
        i += 1
    return len(text)


def _value(body: str, pos: int, strings: dict[str, str]) -> tuple[str, int]:
    """Read a field value (pieces joined by #) at pos; return it and the index after it."""
    parts: list[str] = []
    while pos < len(body):
        while pos < len(body) and body[pos].isspace():
            pos += 1
        if pos >= len(body):
            break
        char = body[pos]
        if char == "{":
            end = _close(body, pos, "{")
            parts.append(body[pos + 1 : end - 1])
            pos = end
        elif char == '"':
            depth, i = 0, pos + 1
            while i < len(body) and not (body[i] == '"' and depth == 0):
                depth += {"{": 1, "}": -1}.get(body[i], 0)
                i += 1
            parts.append(body[pos + 1 : i])
            pos = i + 1
        else:
            token = _TOKEN.match(body, pos)
            if not token:
                break
            word = token[1]
            parts.append(strings.get(word.lower(), word))
            pos = token.end()
        while pos < len(body) and body[pos].isspace():
            pos += 1
        if pos < len(body) and body[pos] == "#":
            pos += 1
            continue
        break
    return "".join(parts), pos


def _fields(body: str, pos: int, strings: dict[str, str]) -> dict[str, str]:
    """Read `name = value` pairs from pos; a malformed one ends the entry (as BibTeX skips)."""
    fields: dict[str, str] = {}
    while pos < len(body):
        while pos < len(body) and body[pos] in ", \t\r\n":
            pos += 1
        name = _NAME.match(body, pos)
        if not name or name.end() >= len(body) or body[name.end()] != "=":
            break
        value, pos = _value(body, name.end() + 1, strings)
        fields.setdefault(name[1].lower(), value.strip())  # BibTeX keeps a field's first value
    return fields


def read_database(text: str) -> list[BibEntry]:
    """Return the entries of a .bib file in file order (a repeated key appears again)."""
    strings = {month: month.capitalize() for month in _MONTHS}
    entries: list[BibEntry] = []
    pos = 0
    while (m := _AT.search(text, pos)) is not None:
        kind = m[1].lower()
        end = _close(text, m.end() - 1, m[2])
        pos = end
        if kind in ("comment", "preamble"):
            continue
        body = _COMMENTED_LINE.sub("", text[m.end() : end - 1])
        if kind == "string":
            strings.update(_fields(body, 0, strings))
            continue
        comma = body.find(",")
        key = (body if comma < 0 else body[:comma]).strip()
        if not key or any(c in key for c in ' \t\n{}"='):
            continue  # not an entry BibTeX could cite
        fields = _fields(body, comma + 1, strings) if comma >= 0 else {}
        entries.append(BibEntry(key, kind, fields))
    return entries


def as_bibtex(entry: BibEntry) -> str:
    """Return the entry written out plainly: one brace-delimited value per field, macros
    expanded (what a strict BibTeX reader takes even when the original was sloppy)."""
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in entry.fields.items())
    return f"@{entry.entry_type}{{{entry.key},\n{body}\n}}"
