"""SPEC §2 steps 3 and 5 by title: catalogue candidates scored on title, year, first author and
venue (imported cited_works and references without a raw string)."""

from __future__ import annotations

from typing import Any

from curation.catalogue import records as catalogue
from curation.catalogue.text import title_key, title_norm
from curation.resolution.scoring import TIE_MARGIN, Query, Scored, score, titles_match
from curation.states import ResolutionStatus, ResolverSource

from .lookups import Lookups
from .verdict import Verdict

_S = ResolutionStatus


def by_title(query: Query, lookups: Lookups, evidence: dict[str, Any]) -> Verdict:
    """Decide SPEC §2 step 5: catalogue candidates scored on title, year, author, venue."""
    if not query.title:
        evidence["decision"] = "no usable title to search by"
        return Verdict(_S.UNRESOLVED, ResolverSource.RAW_FALLBACK, evidence)
    scored = _dedupe(
        score(query, c) for c in catalogue.title_candidates(query.title, lookups.frequencies)
    )
    scored.sort(key=lambda s: (-s.score, s.candidate.work_key))
    evidence["candidates"] = [s.describe() for s in scored[:5]]
    similar = [s for s in scored if titles_match(query, s.candidate, s.title_similarity)]
    if not similar:
        evidence["decision"] = "no candidate title above the threshold"
        source = scored[0].candidate.source if scored else ResolverSource.RAW_FALLBACK
        return Verdict(_S.UNRESOLVED, source, evidence, score=scored[0].score if scored else None)
    consistent = [s for s in similar if not s.contradicted]
    if not consistent:
        best = similar[0]
        evidence["decision"] = "the matching title is contradicted by year or first author"
        return Verdict(_S.METADATA_MISMATCH, best.candidate.source, evidence, score=best.score)
    best = consistent[0]
    if len(consistent) > 1 and best.score - consistent[1].score < TIE_MARGIN:
        evidence["decision"] = "two or more records match equally well: left to curators"
        return Verdict(_S.UNRESOLVED, best.candidate.source, evidence, score=best.score)
    status = _S.VERIFIED_EXACT if best.exact else _S.VERIFIED_FUZZY
    # A DOI record found by search: its arXiv paper is decided for the batch (_versions_decided).
    paper = lookups.papers_by_doi.get(best.candidate.doi or "") if best.candidate.doi else None
    evidence["decision"] = "one record clearly best" + (" (titles equal)" if best.exact else "")
    return Verdict(
        status,
        best.candidate.source,
        evidence,
        best.candidate,
        best.candidate.arxiv_id or (paper.arxiv_id if paper else None),
        best.score,
    )


def by_title_segments(query: Query, lookups: Lookups, evidence: dict[str, Any]) -> Verdict | None:
    """Retry with each sentence of a title the parser left glued to its authors or venue.

    "Gus Dubois and Mira Gallagher. latent kernels for ..." reaches us whole when the title is
    lower case; each segment must still match a whole catalogue title, so precision holds.
    """
    if not query.title or ". " not in query.title:
        return None
    for segment in query.title.split(". "):
        if len(segment.split()) < 3 or segment == query.title:
            continue
        variant = Query(segment, title_norm(segment), title_key(segment), query.year,
                        query.first_author, query.venue)  # fmt: skip
        attempt = by_title(variant, lookups, dict(evidence))
        if attempt.verified:
            attempt.evidence["title_segment"] = segment
            return attempt
    return None


def _dedupe(scored: Any) -> list[Scored]:
    """Keep one entry per work: an arXiv paper and the Crossref record of its DOI are one work."""
    by_work: dict[str, Scored] = {}
    arxiv_dois = set()
    items = list(scored)
    for s in items:
        if s.candidate.arxiv_id and s.candidate.doi:
            arxiv_dois.add(s.candidate.doi)
    for s in items:
        if s.candidate.source == ResolverSource.DOI and s.candidate.doi in arxiv_dois:
            continue
        current = by_work.get(s.candidate.work_key)
        if current is None or s.score > current.score:
            by_work[s.candidate.work_key] = s
    return list(by_work.values())
