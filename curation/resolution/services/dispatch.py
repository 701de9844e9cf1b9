"""Runs queued again: stale runs' chunks, and the re-resolution a grown catalogue calls for.

Jobs are queued by name (`curation.queueing`); a new run queues its own chunks
(`run_create(queue=True)`, `run_dispatch`).
"""

from __future__ import annotations

import logging

from django.conf import settings

from curation.queueing import jobs_waiting, queue_on_commit
from curation.resolution import selectors

from .runs import run_dispatch

log = logging.getLogger(__name__)

QUEUE = "resolution"  # where resolution jobs are routed (settings.CELERY_TASK_ROUTES)
REQUEUE_AFTER_IMPORT = "curation.resolution.tasks.requeue_after_import"
REQUEUE_REASON = "catalogue grew: retry unresolved and malformed references"


def stale_runs_redispatch(*, minutes: float | None = None) -> list[int]:
    """Queue again the unfinished chunks of runs nothing has touched for `minutes` (default:
    the setting RESOLUTION_STALE_RUN_MINUTES).

    Not while jobs wait on the resolution queue: a run behind a long backlog is untouched only
    because its chunks have not come up yet, and queueing them again would only lengthen the
    backlog (every sweep once more). A run whose messages were lost is re-queued once the
    queue has drained.
    """
    if minutes is None:
        minutes = settings.RESOLUTION_STALE_RUN_MINUTES
    run_ids = selectors.stale_runs(minutes=minutes)
    if run_ids and (waiting := jobs_waiting(QUEUE)):
        log.info(
            "runs %s look stale but %s jobs wait on %s: not queued again", run_ids, waiting, QUEUE
        )
        return []
    for run_id in run_ids:
        queued = run_dispatch(run_id=run_id)
        log.warning("run %s was stale: %s unfinished chunks queued again", run_id, queued)
    return run_ids


def unresolved_requeue() -> None:
    """Queue a run over unpinned unresolved and malformed observations (a catalogue grew)."""
    queue_on_commit(REQUEUE_AFTER_IMPORT)
