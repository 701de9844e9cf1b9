"""The resolver as curators use it: a proposal (what it would decide now, shown before anything
is decided) and accepting one (unpin, then let the resolver write its verdict).

The admin screens, bulk actions and the API call these; none of them reaches the resolver's
internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from curation.audit import Actor, audited
from curation.models import Observation
from curation.resolution.candidates import CandidateView, candidates_from_evidence, score_0_100
from curation.resolution.resolver import resolve_inputs
from curation.services.observations import observation_unpin

from .verdicts import observation_input, observations_resolve


@dataclass
class Proposal:
    """What the resolver would decide now, shown to the curator before anything is written."""

    status: str
    resolver_source: str
    arxiv_id: str | None
    doi: str | None
    score: int | None  # 0-100 (candidates.score_0_100)
    decision: str
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def candidates(self) -> list[CandidateView]:
        """Return the proposal's ranked candidates."""
        return candidates_from_evidence(self.evidence)


def propose(observation: Observation) -> Proposal:
    """Return the resolver's verdict for the observation as it is now.

    Nothing is written. Online, the resolver may ask Crossref about a DOI the reference names;
    the answer informs this proposal only (accepting it resolves again, and keeps the answer).
    """
    verdict = resolve_inputs([observation_input(observation)])[0]
    return Proposal(
        status=verdict.status.value,
        resolver_source=verdict.resolver_source.value,
        arxiv_id=verdict.arxiv_id,
        doi=verdict.doi,
        score=score_0_100(verdict.score),
        decision=str(verdict.evidence.get("decision", "")),
        evidence=verdict.evidence,
    )


def stored_disagreement(observation: Observation) -> Any:
    """Return the resolver's stored verdict that differs from the curator's pin, if any."""
    return getattr(observation, "resolver_disagreement", None)


@transaction.atomic
def accept_proposal(
    *, observation: Observation, expected_revision: int, actor: Actor, reason: str
) -> Observation:
    """Unpin the observation and write the resolver's verdict (accepting a proposal unpins)."""
    with audited(actor, reason):  # one history context for the unpin and the verdict
        current = observation_unpin(
            observation=observation, expected_revision=expected_revision, actor=actor, reason=reason
        )
        outcome = observations_resolve(observations=[current], actor=actor, reason=reason)
    if outcome.failed:
        raise RuntimeError("; ".join(outcome.errors or ["the resolver failed"]))
    return Observation.objects.get(pk=current.pk)
