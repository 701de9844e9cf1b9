"""Resolution runs: a selection cut into chunks, each chunk leased, resolved once, counted."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from curation.audit import Actor
from curation.limits import MAX_INTERRUPTED, killed_worker_reason
from curation.models import Observation
from curation.queueing import queue_on_commit
from curation.resolution.models import ResolutionChunk, ResolutionRun, RunStatus

from .verdicts import BatchOutcome, locked_observations, observations_resolve

log = logging.getLogger(__name__)

RESOLVE_CHUNK = "curation.resolution.tasks.resolve_chunk"
CHUNK_SIZE = 250
MAX_RUN_ERRORS = 50


RUN_CREATE_BATCH = 200  # chunks written per statement while a run is created


@transaction.atomic
def run_create(
    *,
    observations: QuerySet[Observation],
    selection: dict[str, Any],
    actor: Actor,
    reason: str,
    chunk_size: int = CHUNK_SIZE,
    job_id: str | None = None,
    queue: bool = False,
) -> ResolutionRun:
    """Create a run and its chunks; the chunks are what workers pick up (with `queue`, each
    is queued once the run commits: `run_dispatch`).

    `job_id` (the Celery job creating it) makes creation idempotent: a job delivered again (its
    worker was lost, or it outlasted the broker's visibility timeout) gets the run the first
    delivery made, never a second run over the same observations. The ids are streamed into
    chunks a batch at a time, so memory stays bounded whatever the selection.
    """
    if job_id is not None:
        # Serialises deliveries of one job: the second waits for the first's commit, then finds it.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"run-create:{job_id}"])
        existing = ResolutionRun.objects.filter(selection__job=job_id).order_by("pk").first()
        if existing is not None:
            log.warning("job %s was delivered again: run %s exists already", job_id, existing.pk)
            if queue:  # chunks done already are skipped by the workers
                run_dispatch(run_id=existing.pk)
            return existing
        selection = {**selection, "job": job_id}
    run = ResolutionRun.objects.create(selection=selection, reason=reason, actor=actor.name)
    total, number, batch, ids = 0, 0, [], []
    for pk in observations.values_list("pk", flat=True).iterator(chunk_size=10 * chunk_size):
        ids.append(str(pk))
        total += 1
        if len(ids) == chunk_size:
            batch.append(ResolutionChunk(run=run, number=number, observation_ids=ids))
            number, ids = number + 1, []
            if len(batch) == RUN_CREATE_BATCH:
                ResolutionChunk.objects.bulk_create(batch)
                batch = []
    if ids:
        batch.append(ResolutionChunk(run=run, number=number, observation_ids=ids))
    ResolutionChunk.objects.bulk_create(batch)
    run.total = total
    run.save(update_fields=["total"])
    if not total:
        ResolutionRun.objects.filter(pk=run.pk).update(
            status=RunStatus.DONE, finished_at=timezone.now()
        )
        run.refresh_from_db()
    if queue:
        run_dispatch(run_id=run.pk)
    return run


class ChunkBusy(Exception):
    """Another worker holds the chunk right now: try again later (never drop it)."""


@dataclass
class ChunkOutcome:
    """What a chunk job did: resolved its observations, or why it did nothing."""

    chunk_id: int
    batch: BatchOutcome | None = None
    skipped: str | None = None

    def summary(self) -> dict[str, Any]:
        """Return the task's result: the counts, or the reason it did nothing."""
        if self.batch is None:
            return {"chunk": self.chunk_id, "skipped": self.skipped}
        return {"chunk": self.chunk_id, "changed": self.batch.changed, "failed": self.batch.failed}


_LEASE_SQL = """
    UPDATE resolution_resolutionchunk
    SET started_at = %s, attempts = attempts + 1, interrupted = interrupted + 1
    WHERE id = (SELECT id FROM resolution_resolutionchunk
                WHERE id = %s AND done_at IS NULL FOR UPDATE SKIP LOCKED)
"""
# Every take of a chunk that ends in Python (done, retried, failed) sets `interrupted` back to
# 0; a take whose worker was killed (out of memory, a crash) leaves it counted. A chunk taken
# again after MAX_INTERRUPTED such takes is failed, with the reason, instead of killing another
# worker.


def chunk_resolve(*, chunk_id: int, actor: Actor) -> ChunkOutcome:
    """Resolve one chunk once, or say why not; raise ChunkBusy while another worker holds it.

    A re-delivered chunk that is already done does nothing and says so. Database errors
    propagate (nothing is written): the task retries them.
    """
    # Take the lease in its own statement so the sweep sees a chunk being worked on; it skips
    # a chunk another worker holds instead of waiting for it.
    with connection.cursor() as cursor:
        cursor.execute(_LEASE_SQL, [timezone.now(), chunk_id])
        leased = cursor.rowcount == 1
    if leased:  # outside the chunk's transaction: it must not hold the run row meanwhile
        ResolutionRun.objects.filter(chunks=chunk_id, status=RunStatus.QUEUED).update(
            status=RunStatus.RUNNING
        )
    with transaction.atomic():
        # Lock the chunk row only (`of self`): a join would lock the run row too, and every
        # other chunk of the run would be skipped.
        chunk = (
            ResolutionChunk.objects.select_for_update(of=("self",), skip_locked=True)
            .filter(pk=chunk_id)
            .first()
        )
        if chunk is None or chunk.done_at is not None:
            return _chunk_not_taken(chunk_id, chunk)
        if not leased:  # another worker held it a moment ago and let go without finishing
            log.info("chunk %s: taken after another worker let go of it", chunk_id)
        elif chunk.interrupted > MAX_INTERRUPTED:
            chunk_failed(chunk_id=chunk_id, error=interrupted_message(chunk.interrupted - 1))
            return ChunkOutcome(chunk_id, skipped="its takes never ended")
        run = ResolutionRun.objects.only("pk", "reason").get(pk=chunk.run_id)
        # Read once, locked: what the verdicts are computed from is what they are written over.
        observations = list(locked_observations(Observation.objects.filter(pk__any=chunk.observation_ids)))
        outcome = observations_resolve(
            observations=observations, actor=actor, reason=run.reason, locked=True
        )
        now = timezone.now()
        ResolutionChunk.objects.filter(pk=chunk.pk).update(done_at=now, last_error="", interrupted=0)
        _run_count(run.pk, len(chunk.observation_ids), outcome, now)
    return ChunkOutcome(chunk_id, batch=outcome)


def _chunk_not_taken(chunk_id: int, locked: ResolutionChunk | None) -> ChunkOutcome:
    """Say why a chunk was not resolved, or raise ChunkBusy when another worker holds it."""
    chunk = locked or ResolutionChunk.objects.filter(pk=chunk_id).first()
    if chunk is None:
        log.warning("chunk %s: no such chunk (its run was deleted?); nothing to do", chunk_id)
        return ChunkOutcome(chunk_id, skipped="no such chunk")
    if chunk.done_at is not None:
        log.info("chunk %s: done already at %s; nothing to do", chunk_id, chunk.done_at)
        return ChunkOutcome(chunk_id, skipped="done already")
    raise ChunkBusy(f"chunk {chunk_id} is being resolved by another worker")


def _run_count(run_id: int, size: int, outcome: BatchOutcome, now: datetime) -> None:
    """Add a finished chunk to its run; the run is done when every observation is counted."""
    with connection.cursor() as cursor:
        # One statement, and it serialises finishing chunks on the run row (READ COMMITTED),
        # so exactly one of them sees the run complete.
        cursor.execute(
            "UPDATE resolution_resolutionrun SET done = done + %s, changed = changed + %s, "
            "failed = failed + %s, errors = CASE WHEN jsonb_array_length(errors) < %s "
            "THEN errors || %s::jsonb ELSE errors END WHERE id = %s RETURNING done, total",
            [size, outcome.changed, outcome.failed, MAX_RUN_ERRORS,
             json.dumps((outcome.errors or [])[:MAX_RUN_ERRORS]), run_id],
        )  # fmt: skip
        done, total = cursor.fetchone()
    if done >= total:
        ResolutionRun.objects.filter(pk=run_id).exclude(status=RunStatus.DONE).update(
            status=RunStatus.DONE, finished_at=now
        )


def interrupted_message(count: int) -> str:
    """Say why a chunk is not resolved again after `count` takes whose worker was killed."""
    return killed_worker_reason(count, "takes", "resume the run to try again")


def chunk_take_ended(*, chunk_id: int) -> None:
    """Record that a take of the chunk ended without finishing it (it will be retried)."""
    ResolutionChunk.objects.filter(pk=chunk_id).update(interrupted=0)


def chunk_failed(*, chunk_id: int, error: str) -> None:
    """Record that a chunk gave up after its retries: on the chunk, and on its run (failed)."""
    chunk = ResolutionChunk.objects.filter(pk=chunk_id).first()
    if chunk is None or chunk.done_at is not None:
        return
    with transaction.atomic():
        ResolutionChunk.objects.filter(pk=chunk_id).update(last_error=error[:2000], interrupted=0)
        run = ResolutionRun.objects.select_for_update().get(pk=chunk.run_id)
        run.errors = (run.errors + [f"chunk {chunk.number}: {error}"])[:MAX_RUN_ERRORS]
        run.status = RunStatus.FAILED
        run.save(update_fields=["errors", "status"])
    log.error("run %s chunk %s gave up: %s", chunk.run_id, chunk.number, error)


def run_dispatch(*, run_id: int) -> int:
    """Queue every unfinished chunk of a run once the caller's transaction commits; return how
    many. Again on a re-delivered job or a resume: chunks done already are skipped by workers."""
    chunk_ids = run_unfinished_chunks(run_id)
    for chunk_id in chunk_ids:
        queue_on_commit(RESOLVE_CHUNK, [chunk_id])
    return len(chunk_ids)


def run_unfinished_chunks(run_id: int) -> list[int]:
    """Return the ids of a run's chunks not done yet, and mark the run as dispatched now."""
    now = timezone.now()
    unfinished = ResolutionRun.objects.filter(pk=run_id).exclude(status=RunStatus.DONE)
    unfinished.update(dispatched_at=now)
    ResolutionRun.objects.filter(pk=run_id, status=RunStatus.FAILED).update(
        status=RunStatus.RUNNING
    )
    return list(
        ResolutionChunk.objects.filter(run_id=run_id, done_at__isnull=True)
        .order_by("number")
        .values_list("pk", flat=True)
    )


def observations_resolve_new(
    *, observations: QuerySet[Observation], actor: Actor, reason: str
) -> int:
    """Resolve the current observations that have no verdict yet, a chunk per transaction, here
    and now (a paper's or a bundle's new references: no run, no queue). Return how many."""
    ids = list(
        observations.filter(retired_at__isnull=True, resolution__isnull=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    for start in range(0, len(ids), CHUNK_SIZE):
        with transaction.atomic():
            locked = list(
                locked_observations(Observation.objects.filter(pk__in=ids[start : start + CHUNK_SIZE]))
            )
            observations_resolve(observations=locked, actor=actor, reason=reason, locked=True)
    return len(ids)
