"""Shared pieces of the format readers: making the listed reference, input errors, decoding."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace

from curation.references.listed import ListedReference
from curation.references.normalize import CONTROL_CHARS

# Longer "references" are extraction accidents (pages glued into one entry): keep the head, flag
# it. The import passes citerec's setting (CITEREC_MAX_REFERENCE_CHARS); this is its default.
MAX_RAW_CHARS = 8_192
_MAGIC = {
    b"%PDF": "a PDF file",
    b"PK\x03\x04": "a ZIP archive (e.g. .docx)",
    b"\x1f\x8b": "a gzip archive",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"\xd0\xcf\x11\xe0": "an old Microsoft Office file",
}


class LineCounter:
    """Turn increasing character offsets into 1-based line numbers in linear total time."""

    def __init__(self, text: str) -> None:
        self._text, self._line, self._pos = text, 1, 0

    def line_at(self, pos: int) -> int:
        """Return the line of offset `pos`; offsets must not decrease between calls."""
        self._line += self._text.count("\n", self._pos, pos)
        self._pos = pos
        return self._line


def iter_lines(text: str) -> Iterator[str]:
    """Yield the lines of text without their line ends, without copying the whole text."""
    pos, end = 0, len(text)
    while pos < end:
        nl = text.find("\n", pos)
        if nl < 0:
            nl = end
        yield text[pos:nl].rstrip("\r")
        pos = nl + 1


class ReferenceInputError(ValueError):
    """A reference list that cannot be read; the message says where and what was expected."""


def make_reference(
    index: int,
    raw: str,
    *,
    label: str | None = None,
    line: int | None = None,
    fields: Mapping[str, str] | None = None,
    problems: tuple[str, ...] = (),
    key: str | None = None,
    doi: str | None = None,
    arxiv_id: str | None = None,
    url: str | None = None,
) -> ListedReference:
    """Return a ListedReference without NUL/control characters, flagged if any were removed."""
    found = list(problems)
    if CONTROL_CHARS.search(raw):
        # PostgreSQL refuses NUL in text columns; other control characters are noise.
        raw = CONTROL_CHARS.sub(" ", raw)
        found.append("control_characters_removed")
    raw = " ".join(raw.split())
    if not raw:
        found.append("empty")
    clean_fields = {k: CONTROL_CHARS.sub(" ", v).strip() for k, v in (fields or {}).items() if v}
    # The key, label and URL are kept with the observation too (jsonb refuses NUL as text does).
    key, label, url = (CONTROL_CHARS.sub("", v) if v else v for v in (key, label, url))
    return ListedReference(
        index, raw, label, line, clean_fields, tuple(found), key, doi, arxiv_id, url
    )


def cut_to(reference: ListedReference, max_chars: int) -> ListedReference:
    """Return the reference with its text cut to `max_chars`, flagged with its full length."""
    if len(reference.raw) <= max_chars:
        return reference
    problem = f"truncated_from_{len(reference.raw)}_chars"
    return replace(
        reference, raw=reference.raw[:max_chars], problems=(*reference.problems, problem)
    )


def decode_input(data: bytes | str, *, name: str = "<input>", errors: str = "strict") -> str:
    """Return the input as text; raise ReferenceInputError for empty, binary or non-UTF-8 data."""
    if isinstance(data, str):
        text = data
    else:
        if not data or data.isspace():  # isspace, not strip: no copy of a large input
            raise ReferenceInputError(f"{name}: the file is empty; expected a reference list")
        for magic, what in _MAGIC.items():
            if data.startswith(magic):
                raise ReferenceInputError(
                    f"{name}: this is {what}, not a reference list; extract the references as "
                    "text, BibTeX, .bbl, TEI or JATS first"
                )
        sample = data[:8192]
        binary = sum(1 for b in sample if b < 9 or 13 < b < 32)
        if binary > len(sample) * 0.1:
            raise ReferenceInputError(
                f"{name}: the file looks binary ({binary} control bytes in the first "
                f"{len(sample)}); expected UTF-8 text"
            )
        try:
            text = data.decode("utf-8-sig", errors=errors)
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            raise ReferenceInputError(
                f"{name}: line {line}, column {column}: byte 0x{data[exc.start]:02x} is not valid "
                "UTF-8; re-save the file as UTF-8 (or read it with errors='replace')"
            ) from None
    if not text or text.isspace():
        raise ReferenceInputError(f"{name}: the file is empty; expected a reference list")
    return text.lstrip("\ufeff")
