"""SPEC §2 step 5 by the whole string: each candidate validated against the reference as
written (title, authors, year, journal, volume, first page), then the calibrated probability."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from curation.catalogue.records import Candidate
from curation.resolution import calibration, matching
from curation.resolution.validate import RawText
from curation.states import ResolutionStatus, ResolverSource

from .inputs import ReferenceInput
from .lookups import Lookups
from .verdict import Verdict

_S = ResolutionStatus


def by_string(
    item: ReferenceInput,
    text: RawText,
    candidates: list[Candidate],
    lookups: Lookups,
    evidence: dict[str, Any],
    whole_string: bool,
) -> Verdict:
    """Decide by validating each candidate against the whole string (SPEC §2 step 5)."""
    evidence["step"] = "string"
    evidence["searched"] = ["parsed title", "locator"] + (["whole string"] if whole_string else [])
    found = matching.match(text, candidates, names_given=item.names_given,
                           parsed_title=item.query().title, cited=item.cited)  # fmt: skip
    evidence["candidates"] = found.candidates
    evidence["decision"] = found.decision
    best = found.best
    source = best.candidate.source if best else ResolverSource.RAW_FALLBACK
    score = best.score if best else None
    if found.status is None:
        return Verdict(_S.UNRESOLVED, source, evidence, score=score)
    if found.status not in (_S.VERIFIED_EXACT, _S.VERIFIED_FUZZY) or best is None:
        return Verdict(found.status, source, evidence, score=score)
    linked = best.candidate
    # A DOI record found by search: its arXiv paper is decided for the batch (_versions_decided).
    paper = lookups.papers_by_doi.get(linked.doi or "") if linked.doi else None
    evidence["matched"] = matched = best.describe()
    matched["probability"] = calibration.probability(matched, found.candidates)
    if matched["probability"] < settings.CITEREC_MIN_LINK_PROBABILITY:
        evidence["decision"] = (f"{found.decision}, but its probability {matched['probability']} "
                                "is below the high-precision bar: left to curators")  # fmt: skip
        return Verdict(_S.UNRESOLVED, source, evidence, score=score)
    return Verdict(found.status, linked.source, evidence, linked,
                   linked.arxiv_id or (paper.arxiv_id if paper else None), score)  # fmt: skip
