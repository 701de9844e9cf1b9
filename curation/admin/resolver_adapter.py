"""The resolver as the curator screens use it: a verdict without saving, a DOI check, and
accepting a proposal (unpin, then let the resolver write its verdict).

Kept behind this small adapter so the screens do not depend on the resolver's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction

from curation.audit import Actor, audited
from curation.models import Observation, Paper
from curation.services.observations import observation_unpin

from .candidates import CandidateView, candidates_from_evidence, score_0_100

ARXIV_DOI_PREFIX = "10.48550/arxiv."


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
    """Return the resolver's verdict for the observation as it is now, writing nothing."""
    from curation.resolution.resolver import resolve_inputs
    from curation.resolution.services import observation_input

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
    from curation.resolution.services import observations_resolve

    with audited(actor, reason):  # one history context for the unpin and the verdict
        current = observation_unpin(
            observation=observation, expected_revision=expected_revision, actor=actor, reason=reason
        )
        outcome = observations_resolve(observations=[current], actor=actor, reason=reason)
    if outcome.failed:
        raise RuntimeError("; ".join(outcome.errors or ["the resolver failed"]))
    return Observation.objects.get(pk=current.pk)


def doi_check(doi: str) -> tuple[bool, str]:
    """Return whether the DOI is known (catalogues, then Crossref when online) and how."""
    from curation.resolution import catalogue

    doi = doi.strip().lower()
    if doi.startswith(ARXIV_DOI_PREFIX):
        arxiv_id = doi[len(ARXIV_DOI_PREFIX) :]
        known = Paper.objects.filter(arxiv_id__iexact=arxiv_id).exists()
        return known, "arXiv DOI of a known paper" if known else "arXiv DOI of an unknown paper"
    if catalogue.works_by_doi([doi]):
        return True, "found in the local catalogue"
    if settings.CITEREC_OFFLINE:
        return False, "not in the local catalogue (offline: Crossref not asked)"
    from curation.crossref import CrossrefError, get_client
    from curation.resolution.importers import store_crossref_works

    try:
        message = get_client().work(doi)
    except CrossrefError as exc:
        return False, f"not in the local catalogue; Crossref unavailable ({exc})"
    if message is None:
        return False, "not found in the local catalogue nor on Crossref"
    store_crossref_works([message])
    return True, "found on Crossref"
