"""Whole-string matching: candidates from the raw text, each validated against it.

Candidates come from three places, searched for a whole batch at once: the parsed title (when
the parser found one), every (volume, first page) pair of numbers in the string whatever the
parse says (the works there whose journal or first author the string names first), and — for the
references still unmatched — the rarest words of the whole string. Each candidate is then
validated by how its own title, authors, year, volume, first page and journal appear in the
string (curation.resolution.validate); the parse only breaks ties.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from curation.catalogue import records as catalogue
from curation.catalogue.records import Candidate, LocatorSearch, TitleSearch
from curation.catalogue.text import content_tokens, k_of_n, title_norm
from curation.resolution.conflicts import CitedFields
from curation.resolution.validate import (
    MIN_EXACT_KEY,
    RawText,
    Validation,
    candidate_journal_keys,
    prescreen,
    validate,
    venue_letters_near,
)
from curation.resolution.venues import VenueText
from curation.states import ResolutionStatus, ResolverSource

TIE_MARGIN = 2.0
# Candidates validated per reference and pass, the best by `prescreen` first. Retrieval finds
# more as the catalogue grows (look-alikes, works sharing a volume and page); only a bounded
# number can name the work, so the cost of a reference stays bounded too.
VALIDATION_BUDGET = 16
_STRING_WORDS = 5  # the rarest words of the whole string searched for, three of them required
_S = ResolutionStatus


def string_search(text: RawText, frequencies: Mapping[str, int]) -> TitleSearch | None:
    """Return a search by the rarest catalogue title words of the whole string."""
    words = [
        w
        for w in content_tokens(text.norm, frequencies)
        if frequencies.get(w, 0) > 0 and len(w) > 2 and not w.isdigit()
    ][:_STRING_WORDS]
    if len(words) < 2:
        return None
    return TitleSearch("", k_of_n(words, min(3, len(words))), len(text.norm) // 2)


def first_candidates(
    texts: Sequence[RawText | None], titles: Sequence[TitleSearch | None]
) -> list[list[Candidate]]:
    """Return each reference's candidates by its parsed title and its locator pairs."""
    located = catalogue.locator_candidates([locator_search(t) if t else None for t in texts])
    by_title = catalogue.title_candidates_batch(titles)
    return [titled + own for titled, own in zip(by_title, located, strict=True)]


def locator_search(text: RawText) -> LocatorSearch | None:
    """Return the locator search of a string: its pairs, ranked by its journal and names."""
    if not text.pairs:
        return None
    return LocatorSearch(tuple(sorted(text.pairs)), text.venue.glued,
                         f" {' '.join(sorted(text.words))} ")  # fmt: skip


def string_candidates(
    texts: Sequence[RawText | None], frequencies: Mapping[str, int]
) -> list[list[Candidate]]:
    """Return each reference's candidates by the rarest words of its whole string."""
    return catalogue.title_candidates_batch(
        [string_search(t, frequencies) if t else None for t in texts]
    )


@dataclass
class Match:
    """The outcome of matching one reference string against its candidates."""

    status: ResolutionStatus | None  # None: nothing in the string names a candidate
    best: Validation | None
    decision: str
    candidates: list[dict[str, Any]]


_TITLE_WORD = re.compile(r"[^\W\d_]{3,}")


def _is_journal(parsed_title: str | None, check: Validation) -> bool:
    """Return whether what the parser took as a title is the candidate's journal (or nothing).

    Under one word is no title of its own: the parser's pick of a number run ("3 (08) (2008)
    S08002"), a glued collaboration ("PlanckCollaboration.2016c") or a journal cut at its first
    dot ("Eur" of "Eur. Phys. J. C").
    """
    if parsed_title is None or len(_TITLE_WORD.findall(parsed_title)) < 2:
        return True
    venue = VenueText(parsed_title)
    if any(venue.contains(k) for k in candidate_journal_keys(check.candidate)):
        return True
    # "Studies in Fam ily Planning": a journal OCR damaged, read as the title. Its letters are
    # the candidate's journal nearly letter for letter (and the string's volume and first page
    # are the candidate's: check.locator).
    return check.locator and venue_letters_near(parsed_title, check.candidate)


def _passes(check: Validation, parsed_title: str | None) -> bool:
    """Return whether a candidate is named by the string and not contradicted by it."""
    if check.contradicted:
        return False
    if check.title_found:
        # A short title ("Software engineering") also reads as a venue: the first author, or
        # the journal's volume and first page, must be there too.
        return (
            len(check.candidate.title_key) >= MIN_EXACT_KEY or check.first_author or check.locator
        )
    if check.locator:
        # A journal citation names its work by the locator; with a title of its own that is not
        # the candidate's, an author must agree as well.
        return bool(check.authors_found) or _is_journal(parsed_title, check)
    return False


def _dedupe(checks: list[Validation]) -> list[Validation]:
    """Keep one entry per work (an arXiv paper and the Crossref record of its DOI are one)."""
    arxiv_dois = {c.candidate.doi for c in checks if c.candidate.arxiv_id and c.candidate.doi}
    best: dict[str, Validation] = {}
    for check in checks:
        candidate = check.candidate
        if candidate.source == ResolverSource.DOI and candidate.doi in arxiv_dois:
            continue
        current = best.get(candidate.work_key)
        if current is None or check.score > current.score:
            best[candidate.work_key] = check
    return sorted(best.values(), key=lambda c: (-c.score, c.candidate.work_key))


def _longest_titles(passing: list[Validation]) -> list[Validation]:
    """Drop a candidate whose title is only part of another found title ("Tissue" in "Tissue
    cultures"): the string is explained by the longer one, so they are not a tie."""
    exact = [c.candidate.title_key for c in passing if c.title_exact]
    return [
        c
        for c in passing
        if not c.title_exact
        or not any(
            len(k) > len(c.candidate.title_key) and c.candidate.title_key in k for k in exact
        )
    ]


def shortlist(
    text: RawText, candidates: Sequence[Candidate], budget: int = VALIDATION_BUDGET
) -> list[Candidate]:
    """Return the distinct candidates worth validating: at most `budget`, the strongest by
    `prescreen`, ties by work key (the same choice whatever order retrieval returned them in)."""
    distinct = list(dict.fromkeys(candidates))
    if len(distinct) <= budget:
        return distinct
    ranked = sorted(distinct, key=lambda c: (-prescreen(text, c), c.work_key, c.source.value))
    return ranked[:budget]


def match(
    text: RawText,
    candidates: list[Candidate],
    *,
    names_given: bool,
    parsed_title: str | None,
    cited: CitedFields | None = None,
) -> Match:
    """Validate every candidate against the string and decide (SPEC §2 step 5)."""
    parsed_norm = title_norm(parsed_title) if parsed_title else None
    checks = _dedupe(
        [
            validate(text, c, names_given=names_given, parsed_title=parsed_norm, cited=cited)
            for c in shortlist(text, candidates)
        ]
    )
    described = [c.describe() for c in checks[:5]]
    passing = _longest_titles([c for c in checks if _passes(c, parsed_title)])
    if passing:
        best = passing[0]
        if len(passing) > 1 and best.score - passing[1].score < TIE_MARGIN:
            return Match(_S.UNRESOLVED, best, "two or more records match equally well: left to "
                         "curators", described)  # fmt: skip
        journal_citation = best.locator and not best.title_found
        # "Yang F, et al. J Biol Chem 2005;280:5892": a parsed "title" that is the journal.
        journal_citation = journal_citation and _is_journal(parsed_title, best)
        if best.title_exact or journal_citation:
            status = _S.VERIFIED_EXACT
        else:
            status = _S.VERIFIED_FUZZY
        how = "title" if best.title_found else "journal, volume and first page"
        return Match(status, best, f"one record clearly best ({how} found in the string)",
                     described)  # fmt: skip
    named = [c for c in checks if c.title_exact or c.title_found]
    if named:
        if fields := ", ".join(named[0].contradicting_fields()):
            why = f"the matching record is contradicted by {fields}"
        else:
            why = "the title found is too short to name a work alone, and nothing else agrees"
        return Match(_S.METADATA_MISMATCH, named[0], why, described)
    return Match(None, checks[0] if checks else None, "no candidate named by the string", described)
