"""Whole-reference layouts that the general reading gets wrong, recognised by their shape.

The full-stop-separated structured rendering of metadata records,
"Family, Given, Family, Given. Title. Journal. 2013. 28. 3. 48-48": authors, title, container,
year, volume, issue and pages, each a field closed by a full stop. Read from the left, the
author list looks like a title (no initials) and the title like a venue; the run of numeric
fields at the end gives the layout away, and once it is known every field has its place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from curation.references.authors import Author, parse_author_block
from curation.references.sentences import split_sentences

# The numeric fields at the end: year, volume, an optional issue, pages (a page or a range).
_NUMERIC_TAIL = re.compile(
    r"\.\s+(?P<year>(?:1[6-9]|20)\d\d)\.\s+(?P<volume>\d{1,5})\.\s+"
    r"(?:(?P<issue>\d{1,4}(?:[-–/]\d{1,4})?)\.\s+)?"
    r"(?P<pages>[A-Za-z]?\d{1,7}(?:\s*[-–]\s*[A-Za-z]?\d{1,7})?)\.?\s*$"
)
_GIVEN = re.compile(r"^(?:[A-Z][\w'’-]*\.?|[A-Z]\.)(?:[\s-]+(?:[A-Z][\w'’-]*\.?|[A-Z]\.))*$")
_FAMILY = re.compile(r"^(?:(?:[a-z]{1,3}\s+){0,2})[A-Z][\w'’-]*(?:[\s-][A-Z][\w'’-]*){0,2}$")

_VANCOUVER = re.compile(r"\s[A-Z]{1,3}$")  # "Smith J, Doe A" is a Vancouver list, not pairs


@dataclass(frozen=True, slots=True)
class FullStopFields:
    """The fields of a full-stop-separated structured reference."""

    authors: list[Author]
    title: str
    container: str
    year: int
    volume: str
    issue: str | None
    pages: str


def full_stop_fields(body: str) -> FullStopFields | None:
    """Return the fields of "Authors. Title. Journal. Year. Volume. Issue. Pages", else None."""
    # The tail is at most 50 characters: searching only there keeps the test cheap.
    tail = _NUMERIC_TAIL.search(body, max(0, len(body) - 50))
    if tail is None:
        return None
    head = body[: tail.start()]
    authors, at = _leading_authors(head)
    segments = split_sentences(head[at:], initials=False) if authors else []
    if authors is None or len(segments) < 2:
        return None
    return FullStopFields(
        authors=authors,
        title=". ".join(segments[:-1]),
        container=segments[-1],
        year=int(tail["year"]),
        volume=tail["volume"],
        issue=tail["issue"],
        pages=tail["pages"].replace(" ", ""),
    )


def _leading_authors(head: str) -> tuple[list[Author] | None, int]:
    """Return the longest run of full-stop-closed text at the start that reads as names.

    A stop after an initial ("Smith, J., Doe, A.") and after a name look alike, so each stop is
    tried in turn and the last one before the first text that is no name list wins.
    """
    found: tuple[list[Author] | None, int] = (None, 0)
    at = head.find(". ")
    while 0 < at < 300:
        block = head[:at]
        authors = _family_given_pairs(block) or parse_author_block(block)
        if not authors:
            break
        found = (authors, at + 2)
        at = head.find(". ", at + 2)
    return found


def _family_given_pairs(block: str) -> list[Author] | None:
    """Return the authors of "Family, Given, Family, Given" (pairs: family name, given names)."""
    pieces = [p.strip() for p in block.split(",")]
    if len(pieces) < 2 or len(pieces) % 2:
        return None
    authors = []
    for family, given in zip(pieces[::2], pieces[1::2], strict=True):
        if not _FAMILY.match(family) or not _GIVEN.match(given) or _VANCOUVER.search(family):
            return None
        authors.append(Author(f"{family}, {given}", family))
    return authors
