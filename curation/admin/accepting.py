"""Which ranked candidates the observation page offers to accept, and when accepting one needs a
confirmation that says why.

A candidate scoring 0 is never offered. One below CURATION_ACCEPT_TOP_CONFIRM_BELOW (or with no
score) is linked only with the confirmation flag: the page asks, and the server refuses a post
without it, so neither a stray key nor a replayed form can link it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from curation.models import Observation
from curation.resolution.candidates import CandidateView, candidates_from_evidence
from curation.selectors import last_candidates_event
from curation.services.observations import CurationError


class NeedsConfirmation(CurationError):
    """Accepting this candidate needs an explicit confirmation: nothing was saved."""

    def __init__(self, candidate: CandidateView) -> None:
        self.candidate = candidate
        super().__init__(
            f"The link was not saved: {why_confirm(candidate)} Confirm to link it anyway."
        )


def ranked_candidates(obj: Observation) -> tuple[list[CandidateView], Any]:
    """Return the ranked candidates, and when they were found if they come from history.

    A curator's decision stores no candidates; the page keeps showing the resolver's last ones.
    """
    resolution = getattr(obj, "resolution", None)
    found = candidates_from_evidence(resolution.evidence if resolution else {})
    if found:
        return found, None
    earlier = last_candidates_event(obj)
    if earlier is None:
        return [], None
    return candidates_from_evidence(earlier.evidence), earlier.pgh_created_at


def threshold() -> int:
    """Return the score (0-100) below which accepting a candidate needs a confirmation."""
    return int(settings.CURATION_ACCEPT_TOP_CONFIRM_BELOW)


def acceptable(candidate: CandidateView) -> bool:
    """Return whether the page offers this candidate to accept (a score of 0 is no match)."""
    return candidate.score != 0


def needs_confirmation(candidate: CandidateView) -> bool:
    """Return whether accepting this candidate needs the curator's confirmation."""
    return candidate.score is None or candidate.score < threshold()


def why_confirm(candidate: CandidateView) -> str:
    """Return, in words, why accepting this candidate needs a confirmation."""
    score = "has no score" if candidate.score is None else f"scores {candidate.score} of 100"
    title = candidate.checks.get("title")
    found = [f"title {title}"] if title and not title.startswith("agrees") else []
    if candidate.contradicted:
        found.append("contradicts: " + ", ".join(candidate.contradicted))
    evidence = "; ".join(found) or (
        "no field contradicts it, but it is not a close enough match"
        if candidate.checks
        else "no field was compared"
    )
    named = f" “{candidate.title}”" if candidate.title else ""
    return f"{candidate.identifier}{named} {score}, below {threshold()} ({evidence})."


def _same(candidate: CandidateView, identifier: tuple[str, str]) -> bool:
    scheme, value = identifier
    if scheme == "arxiv":
        return (candidate.arxiv_id or "").lower() == value.lower()
    return (candidate.doi or "").lower() == value.lower()


def accept_target(obj: Observation, identifier: tuple[str, str], *, confirmed: bool) -> None:
    """Refuse accepting `identifier` unless it is an offered candidate, confirmed if it is low."""
    candidates, _ = ranked_candidates(obj)
    candidate = next((c for c in candidates if _same(c, identifier)), None)
    if candidate is None:
        raise CurationError(
            "The link was not saved: that is not one of this reference's candidates; link it "
            "by identifier."
        )
    if not acceptable(candidate):
        raise CurationError(
            f"The link was not saved: {candidate.identifier} scores 0 of 100, no match; link "
            "it by identifier if it really is the work cited."
        )
    if needs_confirmation(candidate) and not confirmed:
        raise NeedsConfirmation(candidate)
