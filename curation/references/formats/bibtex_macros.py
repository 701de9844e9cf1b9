"""BibTeX field values as BibTeX reads them: braces, quotes, @string macros joined by #,
expanded within bounds (one module for the e-print reader and the .bib import alike)."""

from __future__ import annotations

import re

_BRACE = re.compile(r"[{}]")
_NAME = re.compile(r"\s*([^\s=,{}\"#%()]+)\s*")
_TOKEN = re.compile(r"\s*([A-Za-z0-9_:.+/'-]+)")
_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
# An @string may concatenate itself ten times a level: 330 bytes of .bib once made one
# 100-million-character value. A value (macros expanded) keeps at most its first
# MAX_VALUE_CHARS, far past any reference (CITEREC_MAX_REFERENCE_CHARS cuts them at 8,192
# anyway), and expansion over the whole database may produce at most EXPANSION_FACTOR times
# the file's size more (a journal's @string used a thousand times is a few percent of that).
MAX_VALUE_CHARS = 65_536
EXPANSION_FACTOR = 4


def close_body(text: str, start: int, opener: str) -> int:
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


class Macros:
    """The @string macros of one database and what expanding them may still produce; what
    was cut or left unexpanded is said in `warnings` and counted in `bounded`."""

    def __init__(self, size: int) -> None:
        self.strings = {month: month.capitalize() for month in _MONTHS}
        self.budget = EXPANSION_FACTOR * size
        self.warnings: list[str] = []
        self.bounded = 0  # values cut or left unexpanded so far
        self._spent = False
        self._partial: set[str] = set()  # macros whose own value was bounded

    def define(self, body: str) -> None:
        """Read the `name = value` pairs of an @string's body (inside its braces)."""
        bounded = self.bounded
        defined = read_fields(body, 0, self, "@string")
        self.strings.update(defined)
        if self.bounded > bounded:  # what uses them is counted as bounded too
            self._partial.update(defined)
        else:
            self._partial.difference_update(defined)

    def expand(self, word: str) -> str:
        value = self.strings.get(word.lower())
        if value is None:
            return word
        if len(value) > self.budget:
            self.bounded += 1
            if not self._spent:
                self._spent = True
                self.warnings.append(
                    f"@string macros expand to more than {EXPANSION_FACTOR} times the .bib "
                    f"file's size: {word!r} and later ones are left unexpanded"
                )
            return word
        self.budget -= len(value)
        self.bounded += word.lower() in self._partial
        return value

    def cut(self, value: str, name: str) -> str:
        if len(value) < MAX_VALUE_CHARS:
            return value
        self.bounded += 1
        self.warnings.append(
            f"{name}: a value longer than {MAX_VALUE_CHARS:,} characters keeps its start"
        )
        return value[:MAX_VALUE_CHARS]


def read_value(body: str, pos: int, macros: Macros) -> tuple[str, int]:
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
            end = close_body(body, pos, "{")
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


def read_fields(body: str, pos: int, macros: Macros, key: str) -> dict[str, str]:
    """Read `name = value` pairs from pos; a malformed one ends the entry (as BibTeX skips)."""
    fields: dict[str, str] = {}
    while pos < len(body):
        while pos < len(body) and body[pos] in ", \t\r\n":
            pos += 1
        name = _NAME.match(body, pos)
        if not name or name.end() >= len(body) or body[name.end()] != "=":
            break
        value, pos = read_value(body, name.end() + 1, macros)
        value = macros.cut(value.strip(), f"{key}: {name[1].lower()}")
        fields.setdefault(name[1].lower(), value)  # BibTeX keeps a field's first value
    return fields
