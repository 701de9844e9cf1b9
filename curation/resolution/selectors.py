"""Reads for resolution runs: which observations a run covers, which runs have stalled."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.db.models import Max, Q, QuerySet
from django.db.models.functions import Greatest
from django.utils import timezone

from curation.models import Observation
from curation.resolution.models import ResolutionChunk, ResolutionRun, RunStatus
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
