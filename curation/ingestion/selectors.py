"""Ingestion reads: a paper's ingestion state, the waiting list, the harvest's progress."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count
from django.utils import timezone

from curation.ingestion.models import (
    ACTIVE_STATES,
    HarvestState,
    IngestionState,
    PaperIngestion,
    SourceBundle,
)


def ingestion_of(arxiv_id: str) -> PaperIngestion | None:
    """Return the paper's ingestion, if citerec was ever asked to build it."""
    return PaperIngestion.objects.filter(paper__arxiv_id=arxiv_id).select_related("paper").first()


def stale_ingestions(*, minutes: int) -> list[str]:
    """Return papers queued or in work that nothing has touched for `minutes`."""
    cutoff = timezone.now() - timedelta(minutes=minutes)
    return list(
        PaperIngestion.objects.filter(state__in=ACTIVE_STATES, updated_at__lt=cutoff).values_list(
            "paper__arxiv_id", flat=True
        )
    )


def ingestion_counts() -> dict[str, int]:
    """Return how many papers are in each ingestion state (all states, zeros included)."""
    counts = dict.fromkeys(IngestionState.values, 0)
    for row in PaperIngestion.objects.values("state").annotate(n=Count("pk")):
        counts[row["state"]] = row["n"]
    return counts


def harvest_states() -> list[HarvestState]:
    """Return each harvested set's progress."""
    return list(HarvestState.objects.order_by("set_spec"))


__all__ = ["harvest_states", "ingestion_counts", "ingestion_of", "stale_ingestions"]


def bundle_by_pk(bundle_id: int) -> SourceBundle:
    """Return the source bundle of this id (its progress counters as they are now)."""
    return SourceBundle.objects.get(pk=bundle_id)
