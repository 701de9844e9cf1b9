"""Refresh jobs on the notices queue, queued by name (`curation.queueing`) once a write commits:
works newly linked that no source was asked about, works due a re-check, and the rest of a
batch that reached its time limit."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.utils import timezone

from curation.queueing import queue_on_commit

from ..selectors import works_due

# Works per queued job: a resolver chunk's (250 observations) never-asked works in one job, not
# one per work. Online, a batch's Crossref calls (two per work, paced by the shared throttle)
# still end well within the broker's visibility timeout.
REFRESH_BATCH = 250
REFRESH_WORKS = "curation.notices.tasks.refresh_works"
FIRST_CHECK_REASON = "first notice check of a newly linked work"


def refreshes_queue(
    work_ids: Sequence[int], reason: str | None = None, *, robust: bool = False
) -> None:
    """Queue refreshes of `work_ids`, REFRESH_BATCH works per job (the job's default reason
    when `reason` is None); with `robust`, a broker that refuses a job is logged, not raised."""
    for start in range(0, len(work_ids), REFRESH_BATCH):
        batch = list(work_ids[start : start + REFRESH_BATCH])
        queue_on_commit(REFRESH_WORKS, [batch], {"reason": reason} if reason else {}, robust=robust)


def due_refreshes_queue(*, batch: int, max_age_hours: int) -> int:
    """Queue refreshes of up to `batch` cited works not asked about for `max_age_hours`
    (never-asked first); return how many."""
    due = works_due(limit=batch, before=timezone.now() - timedelta(hours=max_age_hours))
    refreshes_queue(due)
    return len(due)
