"""Celery jobs on the resolution queue: thin callers of the resolution services.

All are idempotent with acks_late: a worker killed mid-chunk rolls its transaction back and the
re-delivered job redoes the chunk; a chunk already done is skipped, so nothing is counted twice.
"""

from __future__ import annotations

from typing import Any

from celery import Task, shared_task

from curation.models import Observation
from curation.resolution import services
from curation.tasks import task_actor

REQUEUE_REASON = "catalogue grew: retry unresolved and malformed references"


@shared_task(bind=True, name="curation.resolution.tasks.resolve_observation", acks_late=True)
def resolve_observation(self: Task, observation_id: str, reason: str) -> dict[str, Any]:
    """Resolve one observation."""
    observations = list(Observation.objects.filter(pk=observation_id))
    outcome = services.observations_resolve(
        observations=observations, actor=task_actor(self), reason=reason
    )
    return {"changed": outcome.changed, "failed": outcome.failed}


@shared_task(bind=True, name="curation.resolution.tasks.resolve_chunk", acks_late=True)
def resolve_chunk(self: Task, chunk_id: int) -> dict[str, Any] | None:
    """Resolve one chunk of a run (a few hundred observations)."""
    outcome = services.chunk_resolve(chunk_id=chunk_id, actor=task_actor(self))
    return None if outcome is None else {"changed": outcome.changed, "failed": outcome.failed}


def dispatch_run(run_id: int) -> None:
    """Queue every unfinished chunk of a run."""
    from curation.resolution.models import ResolutionChunk

    for chunk_id in ResolutionChunk.objects.filter(run_id=run_id, done_at__isnull=True).values_list(
        "pk", flat=True
    ):
        resolve_chunk.delay(chunk_id)


@shared_task(bind=True, name="curation.resolution.tasks.resolve_paper", acks_late=True)
def resolve_paper(self: Task, arxiv_id: str, reason: str) -> int:
    """Resolve every current observation of one paper as a run; return the run id."""
    run = services.run_create(
        observations=services.select_observations(paper_id=arxiv_id),
        selection={"paper": arxiv_id},
        actor=task_actor(self),
        reason=reason,
    )
    dispatch_run(run.pk)
    return run.pk


@shared_task(bind=True, name="curation.resolution.tasks.resolve_batch", acks_late=True)
def resolve_batch(
    self: Task, reason: str, state: str | None = None, everything: bool = False
) -> int:
    """Resolve observations by state (or all of them) as a run in chunks; return the run id."""
    run = services.run_create(
        observations=services.select_observations(state=state, everything=everything),
        selection={"state": state, "all": everything},
        actor=task_actor(self),
        reason=reason,
    )
    dispatch_run(run.pk)
    return run.pk


@shared_task(bind=True, name="curation.resolution.tasks.requeue_after_import", acks_late=True)
def requeue_after_import(self: Task, reason: str = REQUEUE_REASON) -> int:
    """Re-resolve unpinned unresolved and malformed observations after a catalogue grew."""
    run = services.run_create(
        observations=services.retry_candidates(),
        selection={"requeue": "catalogue import"},
        actor=task_actor(self),
        reason=reason,
    )
    dispatch_run(run.pk)
    return run.pk
