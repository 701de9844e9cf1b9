"""Reads for resolution: which observations a run covers, which runs have stalled; what the
resolver reads from an observation, and what it would decide now (a proposal, nothing written)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db.models import Max, Q, QuerySet
from django.db.models.functions import Greatest
from django.utils import timezone

from curation.models import Observation, ObservationListing
from curation.references import parse_reference
from curation.references.stored import parse_from_stored
from curation.resolution.candidates import CandidateView, candidates_from_evidence, score_0_100
from curation.resolution.models import ResolutionChunk, ResolutionRun, RunStatus
from curation.resolution.resolver import ReferenceInput, resolve_inputs
from curation.states import ResolutionStatus

# What a grown catalogue may now resolve (the re-queue after a catalogue import).
RETRY_STATES = (ResolutionStatus.UNRESOLVED, ResolutionStatus.MALFORMED_IDENTIFIER)


def select_observations(
    *, paper_id: str | None = None, state: str | None = None, everything: bool = False
) -> QuerySet[Observation]:
    """Return the observations a run covers (never retired ones)."""
    queryset = Observation.objects.filter(retired_at__isnull=True)
    if paper_id:
        queryset = queryset.filter(paper__arxiv_id=paper_id)
    if state:
        if state == "never_resolved":
            queryset = queryset.filter(resolution__isnull=True)
        else:
            queryset = queryset.filter(resolution__status=state)
    if not (paper_id or state or everything):
        raise ValueError("choose a paper, a state, or everything")
    return queryset.order_by("pk")


def stale_runs(*, minutes: float) -> list[int]:
    """Return unfinished runs (queued or running) that nothing has touched for `minutes`.

    Touched: queued (dispatched), or one of its chunks taken or finished by a worker.
    """
    since = timezone.now() - timedelta(minutes=minutes)
    return list(
        ResolutionRun.objects.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING])
        .filter(Q(dispatched_at__lt=since) | Q(dispatched_at__isnull=True), created_at__lt=since)
        .annotate(touched=Greatest(Max("chunks__started_at"), Max("chunks__done_at")))
        .filter(Q(touched__lt=since) | Q(touched__isnull=True))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def retry_candidates() -> QuerySet[Observation]:
    """Return unpinned observations a grown catalogue may now resolve."""
    return Observation.objects.filter(
        Q(resolution__status__in=RETRY_STATES) | Q(resolution__isnull=True),
        retired_at__isnull=True,
        pinned=False,
    ).order_by("pk")


def run_by_pk(run_id: int) -> ResolutionRun | None:
    """Return the resolution run of this id, or None."""
    return ResolutionRun.objects.filter(pk=run_id).first()


def chunks_by_pk(chunk_ids: Sequence[int]) -> QuerySet[ResolutionChunk]:
    """Return these chunks in the order they were cut."""
    return ResolutionChunk.objects.filter(pk__in=list(chunk_ids)).order_by("number")


@dataclass
class Prepared:
    """An observation with the input read from it and the parse, when it has raw text."""

    observation: Observation
    item: ReferenceInput
    parsed_title: str | None = None
    parsed_year: int | None = None
    parsed_venue: str | None = None


def listings_of(observations: Sequence[Observation]) -> dict[Any, ObservationListing]:
    """Return what their reference lists said of these observations, by observation id, in
    one statement (imported ones, and those listed before listings were kept, have none)."""
    pks = [o.pk for o in observations if o.raw_text is not None]
    if not pks:
        return {}
    rows = ObservationListing.objects.filter(observation__in=pks).only("stated", "parse")
    return {row.observation_id: row for row in rows}


def observation_prepared(
    observation: Observation, listing: ObservationListing | None = None
) -> Prepared:
    """Return the observation with the resolver's input read from it: from raw text, its parse
    stored at import (parsed again when there is none from this parser) and the identifiers
    its list states (`listing`); else its cited_work fields."""
    if observation.raw_text is not None:
        raw = observation.raw_text
        parsed = parse_from_stored(raw, listing.parse) if listing is not None else None
        if parsed is None:
            parsed = parse_reference(raw)
        stated = listing.stated if listing is not None else {}
        item = ReferenceInput.from_parse(
            parsed, stated_doi=stated.get("doi"), stated_arxiv_id=stated.get("arxiv_id")
        )
        return Prepared(
            observation,
            item,
            parsed.title if parsed.title_usable else None,
            parsed.year,
            parsed.venue,
        )
    item = ReferenceInput.from_cited_work(
        title=observation.work_title,
        year=observation.work_year,
        venue=observation.work_venue,
        # What the imported record said, never the link citerec or a curator wrote since
        # (work_doi / work_pith_arxiv_id): a verdict must not read itself back as evidence.
        doi=observation.imported_doi,
        arxiv_id=observation.work_arxiv_id,
        pith_arxiv_id=observation.imported_pith_arxiv_id,
    )
    return Prepared(observation, item)


def observation_input(observation: Observation) -> ReferenceInput:
    """Return what the resolver reads from an observation (raw text, else its cited_work)."""
    return observation_prepared(observation, listings_of([observation]).get(observation.pk)).item


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
