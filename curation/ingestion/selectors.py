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


# What readers are told about an ingestion that failed or waits for a retry. The stored error
# is for staff: it names exceptions, arXiv's endpoint URLs, files inside the e-print.
NOT_ON_ARXIV = "arXiv has no paper {arxiv_id}"
COULD_NOT_READ = "the paper could not be read from arXiv; citerec's staff have the details"
RETRYING = "arXiv or a service behind it did not answer; the paper will be tried again"


def public_reason(ingestion: PaperIngestion) -> str:
    """Return why the ingestion stands where it does, in words anyone may read ("" if none)."""
    if not ingestion.error:
        return ""
    if ingestion.state == IngestionState.FAILED:
        not_on_arxiv = NOT_ON_ARXIV.format(arxiv_id=ingestion.paper.arxiv_id)
        return not_on_arxiv if ingestion.error == not_on_arxiv else COULD_NOT_READ
    if ingestion.state in ACTIVE_STATES:
        return RETRYING  # the error of the attempt that will be retried
    return ingestion.error  # done or PDF only: fixed sentences ("no bibliography found ...")


def known_only_from_a_failed_request(ingestion: PaperIngestion) -> bool:
    """Return whether the paper exists here only because someone asked for it, and it failed.

    Asking for a paper stores its id; its metadata comes from arXiv, in the ingestion. When that
    failed, nothing is known of the paper: it has no record to show.
    """
    paper = ingestion.paper
    return (
        ingestion.state == IngestionState.FAILED
        and not paper.in_catalogue
        and not paper.title
        and paper.submitted_at is None
    )
