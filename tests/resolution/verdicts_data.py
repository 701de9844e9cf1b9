"""Resolver verdicts made to order for the precision tests: a citing paper, catalogue papers,
and references whose stored verdict (origin "computed") has a chosen step, state and
calibrated probability, as the resolver would have written them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from curation.audit import Actor, audited
from curation.models import Observation, Paper, Resolution
from curation.states import ChangeSource, Origin, ResolutionStatus, ResolverSource

CITING = "2601.00001"
RESOLVER = Actor.task("resolve", None)
ALICE = Actor(name="user:alice", source=ChangeSource.ADMIN, user_id=None)
WHEN = datetime(2026, 12, 1, tzinfo=UTC)


def catalogue(*arxiv_ids: str) -> list[Paper]:
    """Return catalogue papers with these ids (made once)."""
    return [
        Paper.objects.get_or_create(
            arxiv_id=a, defaults={"title": f"Paper {a}", "in_catalogue": True}
        )[0]
        for a in arxiv_ids
    ]


def matched(probability: float) -> dict[str, Any]:
    """Return the `evidence.matched` of a whole-string link with this probability."""
    return {"title": "A title of five words", "title_exact": True, "title_found_at": 0,
            "title_similarity": 100, "authors_found": ["smith"], "first_author": "J Smith",
            "year_check": "agrees", "score": 90, "probability": probability}  # fmt: skip


def verdict(
    index: int,
    *,
    links: str | None = "2301.00001",
    step: str = "string",
    probability: float | None = 0.97,
    status: str = ResolutionStatus.VERIFIED_FUZZY,
    text: str | None = None,
) -> Observation:
    """Return a reference of the citing paper holding a resolver verdict as asked."""
    citing = Paper.objects.get_or_create(arxiv_id=CITING, defaults={"title": "Citing"})[0]
    cited = catalogue(links)[0] if links else None
    evidence: dict[str, Any] = {"step": step, "decision": "made to order", "candidates": []}
    if probability is not None:
        evidence["matched"] = matched(probability)
    with audited(RESOLVER, "resolve"):
        observation = Observation.objects.create(
            paper=citing, source="test", reference_index=index, source_observed_at=WHEN,
            raw_text=text or f"Reference number {index}.", normalized_text=f"reference {index}",
            cited_paper=cited, work_pith_arxiv_id=links, changed_at=WHEN,
        )  # fmt: skip
        Resolution.objects.create(
            observation=observation, status=status,
            resolver_source=ResolverSource.LOCAL_ARXIV if links else ResolverSource.RAW_FALLBACK,
            observed_at=WHEN, evidence=evidence, origin=Origin.COMPUTED, resolver_version="t1",
        )  # fmt: skip
    return fresh(observation)


def fresh(observation: Observation) -> Observation:
    """Return the observation as a decision service is handed it."""
    return Observation.objects.select_related("resolution", "cited_paper", "paper").get(
        pk=observation.pk
    )
