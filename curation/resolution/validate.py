"""Validate a candidate against the whole reference string (the SBMV / biblio-glutton shape).

Each of the candidate's own fields — title, author surnames, year, volume, first page, venue —
is looked for in the raw string, with fuzzy alignment for the title. The parse is not needed
to decide; it only breaks ties. The evidence says which field was found where.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from rapidfuzz import fuzz
from unidecode import unidecode

from curation.catalogue.records import Candidate
from curation.catalogue.text import fold_name, title_key, title_norm
from curation.resolution.conflicts import CitedFields, container_differs, find_conflicts
from curation.resolution.scoring import numbers_agree, words_agree
from curation.resolution.venues import (
    VenueText,
    journal_keys,
    locator_pairs,
    ocr_digits,
    page_key,
    split_numbers,
    unglue_numbers,
)

TITLE_FOUND = 90.0  # aligned similarity (0-100) above which the candidate's title is in the string
_YEAR = re.compile(r"(?<![\d.])((?:1[89]|20)\d\d)(?![\d])")
_NUMBER = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]?\d+)")
# "opti-\nmization": a word broken at a line end (a capital after the hyphen is a real hyphen).
_BROKEN = re.compile(r"(?<=[a-z])-\s*\n\s*(?=[a-z])")
_NAME_SPLIT = re.compile(r"[\s,;.]+")
_SPACED_DIGITS = re.compile(r"(?<=\d) (?=\d)")
_NOT_LETTER = re.compile(r"[^a-z]+")
VENUE_LETTERS_MIN = 12  # a journal name this long is found by its letters through spacing damage
VENUE_LETTERS_FOUND = 92.0  # aligned similarity (0-100) of the letters: OCR damage inside words
MIN_EXACT_KEY = 20  # shorter titles must stand as whole words in the string to count as found
# A journal key this long is also found with OCR damage inside its abbreviated words
# ("J Al1ergy Clin Immunol", "Bioinforrnatics"): aligned similarity of the keys (0-100).
# Only ever with the first author, the volume and the first page found too (validate).
VENUE_NEAR_MIN = 8
VENUE_NEAR_FOUND = 86.0
_OCR_LETTERS = re.compile(r"rn")  # "Immunopharrnacol": OCR reads "m" as "rn"


class RawText:
    """A reference string prepared once for validating many candidates."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        joined = _BROKEN.sub("", raw)
        self.norm = title_norm(joined)
        self.spaced = f" {self.norm} "
        self.key = title_key(joined) if len(joined) < 255 else self.norm.replace(" ", "")
        self.words = set(self.norm.split())
        if not joined.isascii():  # "Tønnesen" is also written "Tonnesen"
            self.words |= set(title_norm(unidecode(joined)).split())
        digits = ocr_digits(raw)
        unglued = unglue_numbers(digits)
        # (volume, first page) pairs the numbers could be (venues.locator_pairs)
        self.pairs = set(locator_pairs(unglued, unglued=True))
        self.years = {int(y) for y in _YEAR.findall(digits)}
        self.numbers = {page_key(n) for n in _NUMBER.findall(unglued)}
        self.numbers |= set(split_numbers(digits))
        if _SPACED_DIGITS.search(digits):  # "03400 6 (2008)": also read the digits joined
            joined = unglue_numbers(_SPACED_DIGITS.sub("", digits))
            self.pairs |= set(locator_pairs(joined, unglued=True))
            self.numbers |= {page_key(n) for n in _NUMBER.findall(joined)}
        self.numbers |= {n[1:] for n in self.numbers if n[:1].isalpha()}  # "D60": volume 60

    @cached_property
    def letters(self) -> str:
        """Return the string's letters alone, lower case: a journal name read through spacing
        damage ("IEEETransac tions onAcoustics")."""
        return _NOT_LETTER.sub("", unidecode(self.raw).lower())

    @cached_property
    def venue(self) -> VenueText:
        """Return the string's abbreviated words (for journal keys), built when first needed."""
        return VenueText(self.raw)

    def has_word(self, name: str) -> bool:
        """Return whether a folded surname stands in the string (glued ones need four letters)."""
        if name in self.words:
            return True
        return len(name) >= 4 and name in self.key


@dataclass
class Validation:
    """How a candidate's fields appear in the reference string."""

    candidate: Candidate
    title_similarity: float = 0.0
    title_exact: bool = False
    title_span: tuple[int, int] | None = None
    title_shuffled: bool = False  # the parsed title holds the same words in another order
    first_author: bool = False
    authors_found: list[str] = field(default_factory=list)
    authors_known: bool = False
    year: str = "unknown"  # agrees / contradicts / unknown
    volume: bool = False
    first_page: bool = False
    venue: bool = False
    parse_bonus: float = 0.0
    author_contradicts: bool = False
    # Fields both the parse and the candidate carry, with different values (conflicts.py).
    conflicts: dict[str, dict[str, str]] = field(default_factory=dict)
    container_differs: bool = False  # reported, never a refusal (conflicts.container_differs)

    @property
    def title_found(self) -> bool:
        """Return whether the candidate's title is in the string (exactly or above the bar)."""
        return self.title_exact or self.title_span is not None

    locator: bool = False  # the journal, and its volume followed by its first page
    # The journal found only through damage (_venue_near): it places the volume and first page
    # only together with the first author (validate).
    venue_near: bool = False

    @property
    def support(self) -> int:
        """Return how many of year, volume, first page and journal agree with the string."""
        return (self.year == "agrees") + self.volume + self.first_page + self.venue

    @property
    def contradicted(self) -> bool:
        """Return whether the year, the authors or another field say it is another work."""
        return self.year == "contradicts" or self.author_contradicts or bool(self.conflicts)

    def contradicting_fields(self) -> list[str]:
        """Return the names of the fields that contradict, for the decision's wording."""
        named = ["year"] if self.year == "contradicts" else []
        named += ["authors"] if self.author_contradicts else []
        return named + [f for f in self.conflicts if f not in named]

    @property
    def score(self) -> float:
        """Return how strongly the string supports the candidate."""
        total = self.title_similarity if self.title_found else 0.0
        total += 12.0 if self.locator else 2.0 * self.volume + 3.0 * self.first_page
        total += 4.0 * self.first_author + 2.0 * bool(self.authors_found) + 2.0 * self.venue
        total += {"agrees": 3.0, "unknown": 0.0, "contradicts": -30.0}[self.year]
        total -= 30.0 if self.author_contradicts else 0.0
        return total - 30.0 * len(self.conflicts) + self.parse_bonus

    def describe(self) -> dict[str, Any]:
        """Return the comparison as evidence: which fields were found, and where the title."""
        return {
            **self.candidate.describe(),
            "title_similarity": round(self.title_similarity, 1),
            "title_exact": self.title_exact,
            "title_found_at": list(self.title_span) if self.title_span else None,
            **({"title_words_reordered": True} if self.title_shuffled else {}),
            "authors_found": self.authors_found,
            "author_check": "contradicts"
            if self.author_contradicts
            else ("agrees" if self.authors_found else "unknown"),
            "year_check": self.year,
            "volume_found": self.volume,
            "first_page_found": self.first_page,
            "venue_found": self.venue,
            **({"venue_nearly_found": True} if self.venue_near else {}),
            **({"conflicts": self.conflicts} if self.conflicts else {}),
            **({"container_differs": True} if self.container_differs else {}),
            "score": round(self.score, 1),
        }


def _title(text: RawText, candidate: Candidate, check: Validation) -> None:
    """Find the candidate's title in the string: exactly, or aligned above TITLE_FOUND."""
    norm, key = candidate.title_norm, candidate.title_key
    if not norm or len(key) < 4:
        return
    if f" {norm} " in text.spaced or (len(key) >= MIN_EXACT_KEY and key in text.key):
        check.title_exact, check.title_similarity = True, 100.0
        start = text.norm.find(norm)
        check.title_span = (start, start + len(norm)) if start >= 0 else (0, 0)
        return
    if len(key) < MIN_EXACT_KEY:
        return  # a short title must stand whole: "Evolution" is also a journal's name
    words = norm.split()
    shared = sum(1 for w in words if w in text.words)
    if shared * 2 < len(words) and key[:12] not in text.key:
        return  # most of its words are not in the string: no alignment can reach the bar
    alignment = fuzz.partial_ratio_alignment(norm, text.norm, score_cutoff=TITLE_FOUND - 8)
    glued = fuzz.partial_ratio(key, text.key, score_cutoff=TITLE_FOUND)
    if alignment is None and not glued:
        return
    similarity = max(alignment.score if alignment else 0.0, glued)
    check.title_similarity = similarity
    if similarity < TITLE_FOUND:
        return
    if alignment is not None and alignment.score >= TITLE_FOUND - 8:
        segment = text.norm[alignment.dest_start : alignment.dest_end]
        if not (numbers_agree(segment, norm) and words_agree(segment, norm, both_ways=False)):
            if glued < 97:
                return
        check.title_span = (alignment.dest_start, alignment.dest_end)
    elif glued >= 97:
        check.title_span = (0, 0)  # words glued by PDF extraction: found only without spaces


SHUFFLED_MIN_WORDS = 4  # fewer words in another order are too likely another title


def _shuffled_title(parsed_title: str | None, candidate: Candidate, check: Validation) -> None:
    """Find the candidate's title as the parsed title's words in another order.

    Only the very same words count (as a multiset): a look-alike title one word longer or
    shorter is another work, so no similarity bar stands in for that.
    """
    words = sorted(candidate.title_norm.split())
    if not parsed_title or len(words) < SHUFFLED_MIN_WORDS or sorted(parsed_title.split()) != words:
        return
    check.title_shuffled, check.title_similarity, check.title_span = True, TITLE_FOUND, (0, 0)


@lru_cache(maxsize=65_536)
def _folded(name: str) -> str:
    """Return a catalogue author name transliterated and folded (remembered: names repeat)."""
    return fold_name(unidecode(name))


def _authors(text: RawText, candidate: Candidate, check: Validation, names_given: bool) -> None:
    first = _folded(candidate.first_author)
    names = [_folded(w) for w in _NAME_SPLIT.split(candidate.authors or "") if len(w) > 1]
    names = [n for n in dict.fromkeys([first, *names]) if len(n) >= 2]
    check.authors_known = bool(names)
    check.authors_found = [n for n in names if text.has_word(n)][:5]
    check.first_author = bool(first) and first in check.authors_found
    # Only a reference that names people can contradict the authors.
    check.author_contradicts = names_given and check.authors_known and not check.authors_found


def _author_contradiction_stands(check: Validation, people_named: bool) -> bool:
    """Return whether people the string names, none of them the candidate's, mean another work.

    With the title found, a cut author list ("H, Nakashima Y (2006) ...") loses the first
    author: the journal's volume and first page (or the year, volume, first page and journal
    all) agreeing outweigh that, unless the candidate has co-authors and none is named either;
    scattered numbers do not. Without the title, only the journal,
    volume and page name the work, and a look-alike can share those (an editorial and an
    article on page 1): then people named with initials ("M.L. Prins") contradict, while a
    name-like word the parser took from a journal or a collaboration ("Sov. Phys.", "ALICE
    Collaboration") does not.
    """
    if not check.author_contradicts:
        return False
    if check.title_found:
        # A cut list loses its first author, not the co-authors: people named while none of a
        # candidate's several authors is there (a look-alike record under other names).
        if people_named and _several_authors(check.candidate):
            return True
        return not (check.locator or check.support >= 3)
    return people_named


def _several_authors(candidate: Candidate) -> bool:
    """Return whether the candidate lists more than one author (Crossref's family names joined
    by ", "; arXiv's "A. Name, B. Name and C. Name")."""
    authors = candidate.authors or ""
    return "," in authors or " and " in authors


def _locator_numbers(text: RawText) -> list[tuple[str, str]]:
    """Return the (volume, page) pairs of plain numbers that are neither years nor bracketed
    (an issue "12(3)", a year "74 (2010)", a list number "(137)" or "[12]")."""
    bare = text.raw.replace(" ", "")

    def bracketed(number: str) -> bool:
        return f"({number})" in bare or f"[{number}]" in bare

    return [
        (volume, page)
        for volume, page in text.pairs
        if page.isdigit()
        and volume.isdigit()
        and not {int(volume), int(page)} & text.years
        and not (bracketed(volume) or bracketed(page))
    ]


def _other_locator(text: RawText, candidate: Candidate, check: Validation) -> dict[str, str]:
    """Return the volume or page the string gives in place of the candidate's, where the parse
    found neither (OCR-damaged or unusual layouts): {field: the string's value}.

    With the candidate's volume in the string, the page after it ("Med Hypotheses 2010, 74,
    1036–1037" against a work at 74:1059); with its first page, the volume before it; with
    neither, any volume and page ("J Med Food 2007, 11, l69–178" against the work of the same
    title at 12:469). Only where the journal or the volume places the numbers.
    """
    volume, page = page_key(candidate.volume), page_key(candidate.first_page)
    if not (volume.isdigit() and page.isdigit()) or (check.volume and check.first_page):
        return {}
    if not (check.venue or check.volume):
        return {}
    pairs = _locator_numbers(text)
    if check.volume:
        pages = [p for v, p in pairs if v == volume]
        if pages:
            return {"first_page": min(pages, key=lambda p: (len(p), p))}
        bare = text.raw.replace(" ", "")
        if not (bare.startswith((f"[{volume}]", f"({volume})", f"{volume}.")) and pairs):
            return {}
        # The work's volume is only the list label ("[10] F. Raulin, ... 9, 329 (1977)"): the
        # string's own volume and page are compared below.
    elif check.first_page:
        volumes = [v for v, p in pairs if p == page]
        return {"volume": min(volumes, key=lambda v: (len(v), v))} if volumes else {}
    if not pairs:
        return {}
    first_volume, first_page = min(pairs, key=lambda p: (len(p[0]), p))
    return {"locator": f"{first_volume}:{first_page}"}


@lru_cache(maxsize=65_536)
def _letters(name: str) -> str:
    return _NOT_LETTER.sub("", unidecode(name).lower())


def _venue_letters(text: RawText, candidate: Candidate) -> bool:
    """Return whether the candidate's journal name stands in the string letter for letter,
    spaces and punctuation aside, or nearly so (OCR damage inside its words)."""
    name = _letters(candidate.venue)
    if len(name) < VENUE_LETTERS_MIN:
        return False
    if name in text.letters:
        return True
    return fuzz.partial_ratio(name, text.letters, score_cutoff=VENUE_LETTERS_FOUND) > 0


def candidate_journal_keys(candidate: Candidate) -> tuple[str, ...]:
    """Return the candidate's stored journal keys, then the further keys its container title
    is written under (venues.journal_keys: the whole-title LTWA form, the main title)."""
    return tuple(dict.fromkeys((*candidate.venue_keys, *journal_keys(candidate.venue))))


def _venue_near(text: RawText, candidate: Candidate) -> bool:
    """Return whether one of the candidate's journal keys stands in the string's abbreviated
    words nearly letter for letter: OCR damage inside a word ("Al1ergy", "Immunol" cut to
    "I mmuno 1") changes its abbreviation, so the exact key is not found."""
    glued = _OCR_LETTERS.sub("m", text.venue.glued)
    keys = [_OCR_LETTERS.sub("m", k) for k in candidate_journal_keys(candidate)
            if len(k) >= VENUE_NEAR_MIN]  # fmt: skip
    return any(fuzz.partial_ratio(k, glued, score_cutoff=VENUE_NEAR_FOUND) > 0 for k in keys)


def venue_letters_near(written: str, candidate: Candidate) -> bool:
    """Return whether a text (a parsed "title") is the candidate's journal name letter for
    letter, spaces and punctuation aside, or nearly so: whole, not a part of it."""
    letters = _letters(written)
    name = _letters(candidate.venue)
    if len(name) < VENUE_LETTERS_MIN or not letters:
        return False
    return fuzz.ratio(_OCR_LETTERS.sub("m", name), _OCR_LETTERS.sub("m", letters)) >= (
        VENUE_LETTERS_FOUND
    )


def _year(text: RawText, candidate: Candidate) -> str:
    if not text.years or not candidate.years:
        return "unknown"
    low, high = min(candidate.years) - 1, max(candidate.years) + 1
    return "agrees" if any(low <= y <= high for y in text.years) else "contradicts"


def prescreen(text: RawText, candidate: Candidate) -> float:
    """Return a cheap estimate of how strongly the string names the candidate (higher first),
    to choose the few candidates worth a whole validation.

    The same evidence `validate` weighs, read by set lookups only (no alignment, no journal
    forms): the share of the candidate's title words in the string, the title whole, its
    (volume, first page) pair, volume, first page, first author and year. A few microseconds a
    candidate against tens for `validate`.
    """
    words = candidate.title_norm.split()
    rank = 10.0 * sum(1 for w in words if w in text.words) / len(words) if words else 0.0
    if words and f" {candidate.title_norm} " in text.spaced:
        rank += 5.0
    if candidate.volume and candidate.first_page:
        if (candidate.volume, candidate.first_page) in text.pairs:
            rank += 6.0
        else:
            rank += (candidate.volume in text.numbers) + (candidate.first_page in text.numbers)
    first = _folded(candidate.first_author) if candidate.first_author else ""
    rank += 3.0 * (len(first) >= 2 and text.has_word(first))
    return rank + (_year(text, candidate) == "agrees")


def validate(
    text: RawText,
    candidate: Candidate,
    *,
    names_given: bool,
    parsed_title: str | None = None,
    cited: CitedFields | None = None,
) -> Validation:
    """Return how the candidate's fields appear in the reference string.

    parsed_title is the parser's title, normalised (curation.catalogue.text.title_norm);
    cited, the parse's volume, first page and authors, compared field by field (conflicts.py).
    """
    check = Validation(candidate)
    _title(text, candidate, check)
    if not check.title_found:
        _shuffled_title(parsed_title, candidate, check)
    _authors(text, candidate, check, names_given)
    check.year = _year(text, candidate)
    check.volume = bool(candidate.volume) and (
        candidate.volume in text.numbers or any(v == candidate.volume for v, _ in text.pairs)
    )  # the pairs also read "01 (2017)" as the year-month volume 1701
    check.first_page = bool(candidate.first_page) and candidate.first_page in text.numbers
    keys = candidate_journal_keys(candidate) if candidate.venue_keys else ()
    if keys and (check.volume or check.title_found):
        check.venue = any(text.venue.contains(k) for k in keys)
        check.venue = check.venue or _venue_letters(text, candidate)
    located = (candidate.volume, candidate.first_page) in text.pairs
    if located and keys and not check.venue and check.first_author:
        # A title-less reference whose journal OCR damaged: the journal nearly found, with the
        # first author, the volume and the first page, names the work as the journal does.
        check.venue_near = _venue_near(text, candidate)
    check.locator = (check.venue or check.venue_near) and located
    people_named = cited is not None and cited.people_named(candidate)
    check.author_contradicts = _author_contradiction_stands(check, people_named)
    if cited is not None:
        check.conflicts = find_conflicts(
            cited, candidate, volume_found=check.volume, first_page_found=check.first_page
        )
        if cited.container_key and not check.venue:
            check.container_differs = container_differs(
                cited,
                candidate,
                venue_found=any(text.venue.contains(k) for k in keys),
            )
        if not (cited.volume and cited.first_page):
            # What the parse did not read (OCR damage, an unusual layout) is read from the
            # string's numbers: only the fields the parse left empty.
            work = {"volume": candidate.volume, "first_page": candidate.first_page,
                    "locator": f"{candidate.volume}:{candidate.first_page}"}  # fmt: skip
            empty = {"first_page"} if cited.volume else {"volume"} if cited.first_page else None
            for name, value in _other_locator(text, candidate, check).items():
                if empty is None or name in empty:
                    check.conflicts[name] = {"reference": value, "work": work[name]}
    if parsed_title and candidate.title_norm:
        # The parse is a tie-breaker: a small bonus when the parsed title is the candidate's.
        check.parse_bonus = fuzz.ratio(parsed_title, candidate.title_norm) / 100.0
    return check
