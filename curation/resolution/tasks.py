"""Celery jobs on the resolution queue: thin callers of the resolution services.

All are idempotent with acks_late: a worker killed mid-chunk rolls its transaction back and the
re-delivered job redoes the chunk; a chunk already done is skipped (and says so), so nothing is
counted twice. Chunk jobs retry database errors with backoff; runs nobody touches for a while
are re-queued by a beat job (`redispatch_stale_runs`), and `resolve --resume RUN` does it by hand.
Jobs that follow are queued by the services (`curation.queueing`), never from here.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from django.db.models import QuerySet

from citerec.celery import failure_reason
from curation.audit import Actor
from curation.models import Observation
from curation.resolution import selectors, services
from curation.resolution.schedule import CHUNK_MAX_RETRIES, CHUNK_RETRY_BACKOFF_MAX
from curation.selectors import observation_by_pk

log = logging.getLogger(__name__)


@shared_task(bind=True, name="curation.resolution.tasks.resolve_observation", acks_late=True)
def resolve_observation(self: Task, observation_id: str, reason: str) -> dict[str, Any]:
    """Resolve one observation."""
    observation = observation_by_pk(observation_id)
    observations = [observation] if observation is not None else []
    outcome = services.observations_resolve(
        observations=observations, actor=Actor.for_task(self), reason=reason
    )
    return {"changed": outcome.changed, "failed": outcome.failed}


class ChunkTask(Task):
    """A chunk job: retried with backoff while the database is away or another worker holds
    the chunk; when the retries run out, the chunk and its run record why."""

    autoretry_for = (*services.DATABASE_UNAVAILABLE, services.ChunkBusy)
    max_retries = CHUNK_MAX_RETRIES
    retry_backoff = 2
    # Below the broker's visibility timeout: Redis re-delivers a message held longer than that.
    retry_backoff_max = CHUNK_RETRY_BACKOFF_MAX
    retry_jitter = True

    def on_retry(self, exc: Exception, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        log.warning("chunk job %s retries after: %r", args, exc)
        chunk_id = kwargs.get("chunk_id", args[0] if args else None)
        if chunk_id is None or isinstance(exc, services.ChunkBusy):
            return  # not taken: nothing to say
        try:  # this take ended (it was not killed): the next one is not counted as interrupted
            services.chunk_take_ended(chunk_id=chunk_id)
        except Exception:  # noqa: BLE001 - the database may be away: counted, then
            log.warning("could not record the end of chunk %s's take", chunk_id)

    def on_failure(self, exc: Exception, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        chunk_id = kwargs.get("chunk_id", args[0] if args else None)
        if chunk_id is None or isinstance(exc, services.ChunkBusy):
            return  # the worker holding it finishes it (or lets go and the sweep re-queues it)
        try:
            services.chunk_failed(chunk_id=chunk_id, error=failure_reason(exc))
        except Exception:  # noqa: BLE001 - the database may still be away; the sweep retries
            log.exception("could not record the failure of chunk %s", chunk_id)


@shared_task(
    bind=True, base=ChunkTask, name="curation.resolution.tasks.resolve_chunk", acks_late=True
)
def resolve_chunk(self: Task, chunk_id: int) -> dict[str, Any]:
    """Resolve one chunk of a run (a few hundred observations), or say why it did nothing."""
    return services.chunk_resolve(chunk_id=chunk_id, actor=Actor.for_task(self)).summary()


@shared_task(bind=True, name="curation.resolution.tasks.redispatch_stale_runs", acks_late=True)
def redispatch_stale_runs(self: Task, minutes: float | None = None) -> list[int]:
    """Re-queue the unfinished chunks of runs nothing has touched for `minutes` (default
    RESOLUTION_STALE_RUN_MINUTES; not while jobs wait on the resolution queue)."""
    return services.stale_runs_redispatch(minutes=minutes)


def _run_for_job(
    task: Task, observations: QuerySet[Observation], selection: dict[str, Any], reason: str
) -> int:
    """Create the job's run (once per job: a re-delivered job gets the same run) and queue it."""
    return services.run_create(
        observations=observations, selection=selection, actor=Actor.for_task(task), reason=reason,
        job_id=task.request.id, queue=True,
    ).pk  # fmt: skip


@shared_task(bind=True, name="curation.resolution.tasks.resolve_paper", acks_late=True)
def resolve_paper(self: Task, arxiv_id: str, reason: str) -> int:
    """Resolve every current observation of one paper as a run; return the run id."""
    return _run_for_job(
        self, selectors.select_observations(paper_id=arxiv_id), {"paper": arxiv_id}, reason
    )


@shared_task(bind=True, name="curation.resolution.tasks.resolve_batch", acks_late=True)
def resolve_batch(
    self: Task, reason: str, state: str | None = None, everything: bool = False
) -> int:
    """Resolve observations by state (or all of them) as a run in chunks; return the run id."""
    selection = {"state": state, "all": everything}
    return _run_for_job(
        self, selectors.select_observations(state=state, everything=everything), selection, reason
    )


@shared_task(bind=True, name="curation.resolution.tasks.requeue_after_import", acks_late=True)
def requeue_after_import(self: Task, reason: str = services.REQUEUE_REASON) -> int:
    """Re-resolve unpinned unresolved and malformed observations after a catalogue grew."""
    return _run_for_job(self, selectors.retry_candidates(), {"requeue": "catalogue import"}, reason)
