"""Plain-text reference lists: one per line, or numbered "[12]" / "12." with wrapped lines."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from curation.references.formats.base import iter_lines, make_reference
from curation.references.listed import ListedReference

_BRACKET = re.compile(r"^\s*\[([A-Za-z0-9][\w+.:\-]{0,24})\]\s*(.*)$")
_NUMBERED = re.compile(r"^\s*\(?(\d{1,5})[.)]\s+(.*)$")
_BLANK_LINE = re.compile(r"\n\s*\n")
_HEADING = re.compile(
    r"^\s*(?:references|bibliography|works cited|literature cited)\s*:?\s*$", re.I
)


def _style(lines: list[str]) -> str:
    """Return how the list is laid out, judged from its first lines."""
    bracket = sum(1 for ln in lines if _BRACKET.match(ln))
    numbered = sum(1 for ln in lines if _NUMBERED.match(ln))
    if bracket >= 2 and bracket >= numbered:
        return "bracket"
    if numbered >= 2:
        return "numbered"
    blocks = [b for b in _BLANK_LINE.split("".join(lines)) if b.strip()]
    if len(blocks) >= 2 and any("\n" in b.strip() for b in blocks):
        return "paragraph"
    return "line"


def read_text(text: str) -> Iterator[ListedReference]:
    """Yield the references of a plain-text list, joining wrapped lines."""
    # Lines are iterated lazily so a 20,000-entry file is never held twice as a list.
    style = _style([line + "\n" for line in islice(iter_lines(text), 5000)])
    index = 0
    current: list[str] = []
    label: str | None = None
    start_line = 0
    expected: int | None = None

    def flush() -> Iterator[ListedReference]:
        nonlocal index
        raw = " ".join(part.strip() for part in current)
        if raw.strip():
            index += 1
            yield make_reference(index, raw, label=label, line=start_line)

    for number, line in enumerate(iter_lines(text), 1):
        if _HEADING.match(line):
            continue
        if style == "line":
            current, label, start_line = [line], None, number
            yield from flush()
            continue
        if style == "paragraph":
            if not line.strip():
                yield from flush()
                current = []
            else:
                if not current:
                    start_line = number
                current.append(line)
            continue
        m = (_BRACKET if style == "bracket" else _NUMBERED).match(line)
        # "2022. Title ..." on a wrapped line is a year, not reference 2022: numbers must follow on.
        starts = m is not None and (style == "bracket" or expected is None or int(m[1]) == expected)
        if m and starts:
            yield from flush()
            label, current, start_line = m[1], [m[2]], number
            if style == "numbered":
                expected = int(m[1]) + 1
        elif line.strip():
            if not current:
                start_line = number
            current.append(line)
    if style != "line":
        yield from flush()
