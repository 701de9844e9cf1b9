"""Read where a work sits from the text after its title: container, volume, issue, pages.

The styles print the same facts in different orders and with different marks:
- IEEE and MLA with keywords: "J. Name, vol. 12, no. 3, pp. 45–67, 2003";
- Harvard and APA: "J. Name, 12(3), pp. 45–67" / "J. Name, 12(3), 45–67";
- Chicago: "J. Name 12 (3): 45–67"; Vancouver: "J Name. 2003;12(3):45-67";
- chapters and proceedings: "In: B. Editor (Ed.), Handbook of Things, Springer, Berlin, 2003,
  pp. 12–30" / "In Proceedings of the 12th Conference on Things; ACM: New York, 2010; pp 12–30".
Journal references without keywords ("Phys. Rev. D 65, 094516 (2002)") are found by
journals.find_journal_ref; this module reads what that leaves. A number is only read where its
mark says what it is: a field left empty is better than a wrong one, which the resolver's
validation would take for a contradiction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# "vol. 5", "5(3)", "5, 101 (": the two shapes that open with the number share one scan of it.
# A number right after another and a space is the tail of one OCR split ("121 6 (38)"): no volume.
_VOLUME = re.compile(
    r"\b(?:vol\.?|volume)\s*(\d+)|\b(?<!\d\s)(\d+)(?:\s*\(\d+\)|,\s*[A-Z]?\d+\s*\()", re.I
)
# "pp. 3-9", "pages 3", or a bare "3-9". Each alternative opens with its first character and
# checks what precedes it afterwards ("p(?<!\wp)" is "\bp"), which is much cheaper than a
# look-behind tried at every position.
_PAGES = re.compile(
    r"p(?<!\wp)(?:p?\.?|ages)\s*([A-Z]?\d+(?:\s*[-–]+\s*[A-Z]?\d+)?)"  # "pp. S478–S486"
    # A bare range starts a word, never inside "(1-3)" (an issue), "l251–1263" or the tail of a
    # number that OCR split ("18 2–186"): a wrong first page would contradict the right work.
    r"|(\d(?<![\w.(]\d)(?<!\d\s\d)\d*\s*[-–]{1,2}\s*\d+)(?!\d|\.\d)"
)
# The issue: "no. 3", "issue 3", "Issue 3", or the parenthesis right after a volume, "12(3)",
# "12 (3):" (never a year: "19 (2008) 1396" is Elsevier's volume then year).
_ISSUE = re.compile(
    r"\b(?:no\.|issue)\s*(\d{1,4}(?:[-–/]\d{1,4})?)\b"
    r"|\b\d{1,5}\s*\(\s*(?!(?:1[6-9]|20)\d\d\s*\))(\d{1,4}(?:[-–/]\d{1,4})?|Suppl\.?\s*\d{0,3})\s*\)",
    re.I,
)
_YEAR_LIKE = re.compile(r"(?:1[89]|20)\d\d")
_FIRST_PAGE = re.compile(r"[A-Za-z]?\d+")
# What opens a venue that is a container of the work, not a journal: "In:", "in", "In Proc…".
IN_CONTAINER = re.compile(r"^(?:[Ii]n:\s*|in\s+|In\s+(?=Proc|Advances|Lecture|[A-Z]\.\s))")
# Editors before the book's title: "B. Editor (Ed.),", "Editor, B. (ed.)", "Editor B, editor.".
_EDITORS = re.compile(
    r"^[^()]{1,160}?\((?:eds?|Eds?|Hrsg|editors?)\.?\)\s*[,:.]?\s*"
    r"|^[^()]{1,160}?,\s*(?:editors?|eds?)\.?\s*[,:.]?\s+"
)
# Where a container's name ends: a locator mark, a number standing alone, a publisher, an edited-by.
_CONTAINER_END = re.compile(
    r"\s*[,.;:]?\s*(?:\b(?:vol|volume|no|pp?|pages|issue)\b\.?\s*\d"
    r"|\(|\[|\b\d+\b(?!(?:st|nd|rd|th)\b)"
    r"|,\s*(?:edited\s+by|ed\.\s+by)\b"
    r"|[,.;:]\s*(?:[A-Z][\w-]+\s+(?:University\s+)?Press|Springer|Wiley|Elsevier|ACM|IEEE"
    r"|Academic\s+Press|Cambridge|Oxford|CRC|Routledge)\b)"
)


@dataclass(frozen=True, slots=True)
class Locator:
    """Where the venue text puts the work; a field is None when no mark names it."""

    container: str | None
    volume: str | None
    issue: str | None
    pages: str | None

    @property
    def first_page(self) -> str | None:
        """Return the first page of the range ("45" of "45–67")."""
        m = _FIRST_PAGE.match(self.pages) if self.pages else None
        return m[0] if m else None


def read_locator(venue: str) -> Locator:
    """Return the container, volume, issue and pages the venue text names."""
    volume = _VOLUME.search(venue)
    pages = _PAGES.search(venue)
    vol = volume[1] or volume[2] if volume else None  # each alternative captures one group
    if volume and volume[2] and "," in volume[0] and _YEAR_LIKE.fullmatch(volume[2]):
        vol = None  # ACS "Endosc 1997, 45 (2), AB129": the number before the comma is the year
    pg = pages[1] or pages[2] if pages else None
    issue = _ISSUE.search(venue) if "(" in venue or "o." in venue or "ssue" in venue else None
    return Locator(
        container=container_name(venue),
        volume=vol,
        issue=(issue[1] or issue[2]).replace(" ", "") if issue else None,
        pages=pg.replace(" ", "") if pg else None,
    )


def container_name(venue: str) -> str | None:
    """Return the name of the journal, book or proceedings that opens the venue text."""
    text = IN_CONTAINER.sub("", venue.strip())
    if "d" in text[:170]:  # every editor mark holds a "d"
        text = _EDITORS.sub("", text, count=1)
    end = _CONTAINER_END.search(text)
    name = (text[: end.start()] if end else text).strip(" ,.;:")
    return name if len(name) >= 2 and any(c.isalpha() for c in name) else None
