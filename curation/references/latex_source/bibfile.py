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
# An @string may concatenate itself ten times a level: 330 bytes of .bib once made one
# 100-million-character value. A value (macros expanded) keeps at most its first
# MAX_VALUE_CHARS, far past any reference (CITEREC_MAX_REFERENCE_CHARS cuts them at 8,192
# anyway), and expansion over the whole database may produce at most EXPANSION_FACTOR times
# the file's size more (a journal's @string used a thousand times is a few percent of that).
MAX_VALUE_CHARS = 65_536
EXPANSION_FACTOR = 4


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


class _Expansion:
    """The macros of one database and what expanding them may still produce."""

    def __init__(self, size: int) -> None:
        self.strings = {month: month.capitalize() for month in _MONTHS}
        self.budget = EXPANSION_FACTOR * size
        self.warnings: list[str] = []

    def expand(self, word: str) -> str:
        value = self.strings.get(word.lower())
        if value is None:
            return word
        if len(value) > self.budget:
            if not self.warnings:
                self.warnings.append(
                    f"@string macros expand to more than {EXPANSION_FACTOR} times the .bib "
                    f"file's size: {word!r} and later ones are left unexpanded"
                )
            return word
        self.budget -= len(value)
        return value

    def cut(self, value: str, name: str) -> str:
        if len(value) < MAX_VALUE_CHARS:
            return value
        self.warnings.append(
            f"{name}: a value longer than {MAX_VALUE_CHARS:,} characters keeps its start"
        )
        return value[:MAX_VALUE_CHARS]


def _value(body: str, pos: int, macros: _Expansion) -> tuple[str, int]:
    """Read a field value (pieces joined by #) at pos; return it and the index after it."""
    parts: list[str] = []
    length = 0
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
            # Once the value is full, the rest is read past, not expanded (it would be cut).
            parts.append(macros.expand(token[1]) if length < MAX_VALUE_CHARS else "")
            pos = token.end()
        length += len(parts[-1])
        while pos < len(body) and body[pos].isspace():
            pos += 1
        if pos < len(body) and body[pos] == "#":
            pos += 1
            continue
        break
    return "".join(parts), pos


def _fields(body: str, pos: int, macros: _Expansion, key: str) -> dict[str, str]:
    """Read `name = value` pairs from pos; a malformed one ends the entry (as BibTeX skips)."""
    fields: dict[str, str] = {}
    while pos < len(body):
        while pos < len(body) and body[pos] in ", \t\r\n":
            pos += 1
        name = _NAME.match(body, pos)
        if not name or name.end() >= len(body) or body[name.end()] != "=":
            break
        value, pos = _value(body, name.end() + 1, macros)
        value = macros.cut(value.strip(), f"{key}: {name[1].lower()}")
        fields.setdefault(name[1].lower(), value)  # BibTeX keeps a field's first value
    return fields


def read_database(text: str, warnings: list[str] | None = None) -> list[BibEntry]:
    """Return the entries of a .bib file in file order (a repeated key appears again); what
    was cut or left unexpanded is said in `warnings`."""
    macros = _Expansion(len(text))
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
            macros.strings.update(_fields(body, 0, macros, "@string"))
            continue
        comma = body.find(",")
        key = (body if comma < 0 else body[:comma]).strip()
        if not key or any(c in key for c in ' \t\n{}"='):
            continue  # not an entry BibTeX could cite
        fields = _fields(body, comma + 1, macros, key) if comma >= 0 else {}
        entries.append(BibEntry(key, kind, fields))
    if warnings is not None:
        warnings.extend(macros.warnings[:10])
    return entries


def as_bibtex(entry: BibEntry) -> str:
    """Return the entry written out plainly: one brace-delimited value per field, macros
    expanded (what a strict BibTeX reader takes even when the original was sloppy)."""
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in entry.fields.items())
    return f"@{entry.entry_type}{{{entry.key},\n{body}\n}}"
