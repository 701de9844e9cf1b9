"""Journal names and journal references: one key per journal, however it is written.

"Physical Review D", "Phys. Rev. D" and "Phys.Rev.D" all become the key "physrevd": each word is
abbreviated by the ISSN's List of Title Word Abbreviations (LTWA, shipped by pyiso4), stop words
are dropped and the rest is glued. A journal reference ("Phys.Rev.D65:094516,2002", "Nucl. Phys.
B 393 (1993) 377-400") becomes a Locator: venue key, volume and first page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from unidecode import unidecode

# Acronyms that journals themselves use as their name, and that the LTWA cannot derive.
_ALIASES = {"jhighenergyphys": "jhep", "jcosmolastropartphys": "jcap"}
_LONG_FORMS = {short: (long,) for long, short in _ALIASES.items()}
# Words, split where PDF extraction glued them by case too ("NuovoCimento", "EnergyPhys").
_TOKEN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_YEAR = re.compile(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)")
# venue, an optional series letter glued to the volume ("B393"), volume, optional "(year)",
# first page (optionally a letter, "L155"); what the arXiv journal-ref field holds.
_JOURNAL_REF = re.compile(
    r"^\s*(?P<venue>[^\d(]*?[A-Za-z.][^\d(]*?)\s*(?P<volume>\d{1,5})\s*"
    r"(?:\(\s*(?P<year>(?:1[89]|20)\d\d)\s*\))?\s*(?:[,:]\s*)?(?:no\.\s*\d+\s*,?\s*)?"
    r"(?:pp?\.\s*)?(?P<page>[A-Za-z]?\d{1,7})\b"
)


@cache
def _ltwa() -> Any:
    """Return the LTWA abbreviator and its stop words (loaded once per process, about 0.6 s)."""
    from pyiso4.ltwa import Abbreviate

    return Abbreviate.create()


@cache
def _stopwords() -> frozenset[str]:
    return frozenset(w.lower() for w in _ltwa().stopwords) | {"the", "a", "an", "and", "of"}


@lru_cache(maxsize=200_000)
def word_key(word: str) -> str:
    """Return the LTWA abbreviation of one word, lower case, letters and digits only ("" = drop)."""
    folded = unidecode(word)
    lower = folded.lower()
    if len(folded) == 1 and folded.isupper():
        return lower  # a series letter ("Phys. Rev. A"), not the article "a"
    if lower in _stopwords() or not folded:
        return ""
    if lower.isdigit() or len(lower) <= 2:
        return lower
    from pyiso4.ltwa import Pattern

    # The guide is padded: an abbreviation may be longer than a short word it matches.
    abbreviated, _ = _ltwa().abbreviate(Pattern.normalize(folded), folded, folded.ljust(40))
    return re.sub(r"[^a-z0-9]", "", abbreviated.lower()) or lower


def venue_key(name: str) -> str:
    """Return the journal key of a journal name or abbreviation ("" when there is none).

    A one-word name is kept whole, as ISO 4 does ("Europace", "Nature", "Blood").
    """
    tokens = [w for w in _TOKEN.findall(name or "") if not w.isdigit()]
    words = [word_key(w) for w in tokens]
    if sum(1 for w in words if w) == 1 and len(tokens) == 1:
        return unidecode(tokens[0]).lower()[:128]
    key = "".join(w for w in words if w)[:128]
    return _ALIASES.get(key, key)


def page_key(page: str) -> str:
    """Return a first page or volume for comparison: lower case, leading zeros dropped."""
    text = (page or "").strip().lower()
    match = re.match(r"([a-z]?)0*(\d+)", text)
    return f"{match.group(1)}{match.group(2)}"[:32] if match else text[:32]


def first_page(pages: str) -> str:
    """Return the first page of a Crossref page range ("496-7" -> "496")."""
    return page_key(re.split(r"[-–—,]", pages or "")[0])


@dataclass(frozen=True)
class Locator:
    """Where a work was published: journal key, volume, first page (and the year given)."""

    venue_key: str
    volume: str
    first_page: str
    year: int | None = None


def parse_journal_ref(text: str) -> Locator | None:
    """Return the locator of an arXiv journal-ref, or None when it gives no venue/volume/page."""
    if not text:
        return None
    match = _JOURNAL_REF.match(text)
    if not match:
        return None
    venue = match.group("venue")
    key = venue_key(venue)
    if len(key) < 2:
        return None
    years = _YEAR.findall(text)
    year = match.group("year") or (years[-1] if years else None)
    return Locator(key, page_key(match.group("volume")), page_key(match.group("page")),
                   int(year) if year else None)  # fmt: skip


class VenueText:
    """The abbreviated words of a reference string, to find a journal key in it."""

    def __init__(self, raw: str) -> None:
        self.glued = ""
        self.words = {unidecode(w).lower() for w in _TOKEN.findall(raw)}
        self.starts: set[int] = set()
        self.ends: set[int] = set()
        for word in _TOKEN.findall(raw):
            if word.isdigit():
                continue
            key = word_key(word)
            if not key:
                continue
            self.starts.add(len(self.glued))
            self.glued += key
            self.ends.add(len(self.glued))

    def contains(self, key: str) -> bool:
        """Return whether the journal key is written in the string on word boundaries."""
        if not key:
            return False
        if key in self.words:
            return True
        return any(self._glued(k) for k in (key, *_LONG_FORMS.get(key, ())))

    def _glued(self, key: str) -> bool:
        start = self.glued.find(key)
        while start >= 0:
            if start in self.starts and start + len(key) in self.ends:
                return True
            start = self.glued.find(key, start + 1)
        return False
