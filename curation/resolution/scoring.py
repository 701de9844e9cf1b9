"""Compare what a reference says with a catalogue record: title, year, first author, venue."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz

from curation.catalogue.records import Candidate
from curation.catalogue.text import fold_name

FUZZY_THRESHOLD = 92.0  # title similarity (0-100) above which two titles name the same work
ID_TITLE_THRESHOLD = 85.0  # with a resolving identifier, a looser title still agrees
TIE_MARGIN = 2.0
_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class Query:
    """What a reference says about the work it cites."""

    title: str | None
    title_norm: str
    title_key: str
    year: int | None
    first_author: str  # folded surname, "" when unknown
    venue: str


@dataclass
class Scored:
    """A candidate with the comparison of each field."""

    candidate: Candidate
    title_similarity: float
    exact: bool
    year: str  # agrees / contradicts / unknown
    author: str
    venue: str
    score: float

    @property
    def contradicted(self) -> bool:
        """Return whether year or first author says this is another work."""
        return "contradicts" in (self.year, self.author)

    def describe(self) -> dict[str, Any]:
        """Return the comparison as evidence."""
        return {
            **self.candidate.describe(),
            "title_similarity": round(self.title_similarity, 1),
            "title_exact": self.exact,
            "year_check": self.year,
            "author_check": self.author,
            "venue_check": self.venue,
            "score": round(self.score, 1),
        }


def title_similarity(query: Query, candidate: Candidate) -> float:
    """Return 0-100: how alike the titles are, spaces ignored too (glued words)."""
    if not query.title_norm or not candidate.title_norm:
        return 0.0
    spaced = fuzz.ratio(query.title_norm, candidate.title_norm)
    glued = fuzz.ratio(query.title_key, candidate.title_key)
    return float(max(spaced, glued))


def numbers_agree(a: str, b: str) -> bool:
    """Return whether two titles hold the same numbers.

    "Llama 2" and "Llama 3", "GPT-3" and "GPT-4" are different works however alike the text.
    """
    return set(_NUMBER.findall(a)) == set(_NUMBER.findall(b))


def words_agree(a: str, b: str, both_ways: bool = True) -> bool:
    """Return whether every longer word of b (and of a, both ways) has a close counterpart."""
    left, right = a.split(), b.split()
    pairs = ((left, right), (right, left)) if both_ways else ((right, left),)
    for words, others in pairs:
        for word in words:
            if len(word) < 4 or word in others:
                continue
            if not any(fuzz.ratio(word, other) >= 80 for other in others):
                return False
    return True


def titles_match(query: Query, candidate: Candidate, similarity: float) -> bool:
    """Return whether the reference's title names this candidate (the fuzzy rule)."""
    if query.title_key == candidate.title_key:
        return True
    if not numbers_agree(query.title_norm, candidate.title_norm):
        return False
    if similarity >= FUZZY_THRESHOLD and words_agree(query.title_norm, candidate.title_norm):
        return True
    # Words glued by PDF extraction: equal once spaces are ignored, checked by the key ratio.
    return fuzz.ratio(query.title_key, candidate.title_key) >= 96


def title_agrees_with_identifier(query: Query, candidate: Candidate) -> bool:
    """Return whether a title is compatible with the record its identifier resolves to."""
    similarity = title_similarity(query, candidate)
    if similarity >= ID_TITLE_THRESHOLD or query.title_key == candidate.title_key:
        return numbers_agree(query.title_norm, candidate.title_norm) or similarity >= 97
    # A title that is the record's title plus a tail, or its main part before the subtitle.
    shorter = min(len(query.title_key), len(candidate.title_key))
    longer = max(len(query.title_key), len(candidate.title_key)) or 1
    return (
        shorter / longer >= 0.5 and fuzz.partial_ratio(query.title_key, candidate.title_key) >= 95
    )


def year_check(query: Query, candidate: Candidate) -> str:
    """Return agrees / contradicts / unknown: a year within one of any of the record's years."""
    if query.year is None or not candidate.years:
        return "unknown"
    low, high = min(candidate.years), max(candidate.years)
    return "agrees" if low - 1 <= query.year <= high + 1 else "contradicts"


def author_check(query: Query, candidate: Candidate) -> str:
    """Return agrees / contradicts / unknown for the first author's surname."""
    if not query.first_author or not (candidate.first_author or candidate.authors):
        return "unknown"
    surname = query.first_author
    first = fold_name(candidate.first_author)
    if first and (fuzz.ratio(surname, first) >= 85 or _same_tail(surname, first)):
        return "agrees"
    # Reference lists reorder or abbreviate authors: any author of the record will do.
    names = {fold_name(w) for w in re.split(r"[\s,;.]+", candidate.authors) if w}
    if surname in names or any(len(n) > 2 and _same_tail(surname, n) for n in names):
        return "agrees"
    return "contradicts"


def _same_tail(a: str, b: str) -> bool:
    # "sarahooker" (a whole name read as a surname) and "hooker"; "vanderberg" and "berg".
    shorter, longer = sorted((a, b), key=len)
    return len(shorter) >= 3 and longer.endswith(shorter)


def venue_check(query: Query, candidate: Candidate) -> str:
    """Return agrees / unknown: the venue only ever supports a match, it never refutes one."""
    if not query.venue or not candidate.venue:
        return "unknown"
    return "agrees" if fuzz.token_set_ratio(query.venue, candidate.venue) >= 80 else "unknown"


def score(query: Query, candidate: Candidate) -> Scored:
    """Return the candidate scored against the query."""
    similarity = title_similarity(query, candidate)
    year, author, venue = (
        year_check(query, candidate),
        author_check(query, candidate),
        venue_check(query, candidate),
    )
    bonus = {"agrees": 1.0, "unknown": 0.0, "contradicts": -10.0}
    total = similarity + 3 * bonus[author] + 2 * bonus[year] + (1.0 if venue == "agrees" else 0.0)
    return Scored(
        candidate=candidate,
        title_similarity=similarity,
        exact=query.title_key == candidate.title_key,
        year=year,
        author=author,
        venue=venue,
        score=total,
    )
