"""Read reference lists in any supported format as a stream of ListedReference."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from curation.references.formats.base import (
    MAX_RAW_CHARS,
    ReferenceInputError,
    cut_to,
    decode_input,
)
from curation.references.formats.bbl import read_bbl
from curation.references.formats.bib import read_bib
from curation.references.formats.jats import read_jats
from curation.references.formats.tei import read_tei
from curation.references.formats.text import read_text
from curation.references.listed import ListedReference

FORMATS = ("bib", "bbl", "text", "tei", "jats")
_READERS: dict[str, Callable[[str], Iterator[ListedReference]]] = {
    "bib": read_bib,
    "bbl": read_bbl,
    "text": read_text,
    "tei": read_tei,
    "jats": read_jats,
}
_BIB_ENTRY = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]", re.MULTILINE)

__all__ = ["FORMATS", "ReferenceInputError", "ListedReference", "detect_format", "read_references"]


def detect_format(text: str) -> str:
    """Return the format name of a reference list judged from its content."""
    head = text[:20_000].lstrip("\ufeff \t\r\n")
    if head.startswith("<"):
        if "tei-c.org/ns" in head or "<TEI" in head or "<listBibl" in head:
            return "tei"
        if "<ref-list" in head or "JATS" in head or "<article" in head or "<ref " in head:
            return "jats"
        return "tei" if "biblStruct" in head else "jats"
    if "\\bibitem" in head or "\\begin{thebibliography}" in head or "\\entry{" in head:
        return "bbl"
    if _BIB_ENTRY.search(head):
        return "bib"
    return "text"


def read_references(
    data: bytes | str,
    format: str = "auto",
    *,
    name: str = "<input>",
    errors: str = "strict",
    max_chars: int = MAX_RAW_CHARS,
) -> Iterator[ListedReference]:
    """Yield the references of one reference list, in source order, numbered from 1.

    Raises ReferenceInputError (naming the input and, where it can, the line) for empty,
    binary, non-UTF-8 or unreadable input and for a list with no references; problems
    confined to one reference are reported in its `problems` instead (a text longer than
    `max_chars` is cut to it and flagged `truncated_from_<N>_chars`).
    """
    text = decode_input(data, name=name, errors=errors)
    fmt = detect_format(text) if format == "auto" else format
    if fmt not in _READERS:
        raise ReferenceInputError(f"{name}: unknown format {format!r}; expected one of {FORMATS}")
    count = 0
    try:
        for ref in _READERS[fmt](text):
            count += 1
            yield cut_to(ref, max_chars)
    except ReferenceInputError as exc:
        raise ReferenceInputError(f"{name}: {exc}") from None
    if count == 0:
        raise ReferenceInputError(f"{name}: no references found (read as {fmt})")
