"""Runs on real Celery workers (Redis, PostgreSQL): they finish, whatever happens to a worker.

Each test builds a run of several small chunks, lets real worker processes take it, and checks
that every observation was resolved exactly once: the run counts each chunk once (done == total),
every chunk is done, and each observation has one resolution written by one history event.

"Mid-chunk" is made deterministic by locking one observation of the run from the test: the
worker that takes its chunk holds the chunk and waits inside its transaction until released.
"""

from __future__ import annotations

import io
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection, connections

from curation.audit import Actor
from curation.models import Resolution
from curation.resolution import services
from curation.resolution.models import ResolutionChunk, ResolutionRun, RunStatus
from curation.resolution.services import run_dispatch
from tests.resolution.runs import make_run
from tests.workers import Worker, queued, start_worker, wait_for, worker_env, workers

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]
ACTOR = Actor.command("test")
REFERENCES = 48
CHUNK = 4


@pytest.fixture
def run() -> ResolutionRun:
    """Return a queued (not yet dispatched) run of 48 references in 12 chunks."""
    return make_run(REFERENCES, CHUNK)


def assert_resolved_once(run: ResolutionRun) -> None:
    run.refresh_from_db()
    assert (run.status, run.done, run.total, run.failed) == (
        RunStatus.DONE,
        REFERENCES,
        REFERENCES,
        0,
    )
    assert not ResolutionChunk.objects.filter(run=run, done_at__isnull=True).exists()
    assert Resolution.objects.count() == REFERENCES
    events = apps.get_model("curation", "ResolutionEvent").objects
    assert events.count() == REFERENCES  # one insert each: nothing resolved twice


def finished(run: ResolutionRun) -> bool:
    return ResolutionRun.objects.filter(pk=run.pk, status=RunStatus.DONE).exists()


@contextmanager
def observation_held(run: ResolutionRun, number: int = 0) -> Iterator[ResolutionChunk]:
    """Lock an observation of chunk `number` in a second connection until the block ends."""
    chunk = ResolutionChunk.objects.get(run=run, number=number)
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute(
                "SELECT id FROM curation_observation WHERE id = %s FOR UPDATE",
                [chunk.observation_ids[-1]],
            )
            yield chunk
            cursor.execute("ROLLBACK")
    finally:
        other.close()


def chunk_waiting(run: ResolutionRun) -> bool:
    """Return whether a worker's backend waits on the held observation (it is mid-chunk)."""
    return waiting_backend() is not None


def waiting_backend() -> int | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        row = cursor.fetchone()
    return row[0] if row else None


def start_mid_chunk(
    env: dict[str, str], name: str, run: ResolutionRun, running: list[Worker]
) -> Worker:
    """Start a worker, queue the run, and return once the worker waits inside chunk 0."""
    worker = start_worker(env, name=name, concurrency=1)
    running.append(worker)
    run_dispatch(run_id=run.pk)
    wait_for(lambda: chunk_waiting(run), timeout=60, running=running, what="mid-chunk")
    return worker


def test_two_pool_processes_finish_a_run(broker: str, run: ResolutionRun) -> None:
    with workers() as running:
        running.append(start_worker(worker_env(broker), name="pair", concurrency=2))
        run_dispatch(run_id=run.pk)
        wait_for(lambda: finished(run), timeout=90, running=running, what="the run")
    assert_resolved_once(run)


def test_two_workers_finish_one_run(broker: str, run: ResolutionRun) -> None:
    with workers() as running:
        running.append(start_worker(worker_env(broker), name="first", concurrency=1))
        running.append(start_worker(worker_env(broker), name="second", concurrency=1))
        # Both must be consuming before the chunks are queued, or the first one up may take
        # them all while the second one is still starting (a fresh clone's CI saw exactly that).
        wait_for(lambda: all(w.ready() for w in running), timeout=60, running=running, what="ready")
        run_dispatch(run_id=run.pk)
        wait_for(lambda: finished(run), timeout=90, running=running, what="the run")
        outputs = [w.stop() for w in running]
    assert_resolved_once(run)
    assert all("resolve_chunk" in output for output in outputs), "both workers took chunks"


def test_a_terminated_database_connection_is_retried(broker: str, run: ResolutionRun) -> None:
    with workers() as running:
        with observation_held(run):
            worker = start_mid_chunk(worker_env(broker), "cut", run, running)
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(%s)", [waiting_backend()])
        wait_for(lambda: finished(run), timeout=90, running=running, what="the run")
        output = worker.stop()
    assert "retries after" in output, output[-3000:]
    assert_resolved_once(run)


def test_a_killed_main_process_loses_nothing(broker: str, run: ResolutionRun) -> None:
    short = worker_env(broker, CELERY_VISIBILITY_TIMEOUT="3")
    with workers() as running:
        with observation_held(run):
            first = start_mid_chunk(short, "doomed", run, running)
            first.kill_main()
            # The whole machine is gone: its orphaned pool process too.
            first.stop()
        running.append(start_worker(short, name="heir", concurrency=1))
        wait_for(lambda: finished(run), timeout=120, running=running, what="the run")
    assert_resolved_once(run)


def test_a_killed_pool_process_loses_nothing(broker: str, run: ResolutionRun) -> None:
    with workers() as running:
        with observation_held(run):
            worker = start_mid_chunk(worker_env(broker), "bruised", run, running)
            child = worker.children()
            assert len(child) == 1
            os.kill(child[0], signal.SIGKILL)
        wait_for(lambda: finished(run), timeout=120, running=running, what="the run")
        output = worker.stop()
    assert "WorkerLostError" in output or "SIGKILL" in output, output[-3000:]
    assert_resolved_once(run)


def test_resume_queues_only_the_unfinished_chunks(broker: str, run: ResolutionRun) -> None:
    for chunk in ResolutionChunk.objects.filter(run=run, number__lt=5):
        services.chunk_resolve(chunk_id=chunk.pk, actor=ACTOR)  # done before the workers died
    out = io.StringIO()
    call_command("resolve", "--resume", str(run.pk), stdout=out)
    assert f"run {run.pk}: 7 unfinished chunks queued again" in out.getvalue()
    assert queued(broker) == 7
    with workers() as running:
        running.append(start_worker(worker_env(broker), name="resumer", concurrency=1))
        wait_for(lambda: finished(run), timeout=90, running=running, what="the run")
    assert_resolved_once(run)


def test_a_worker_without_its_database_leaves_the_queue_alone(
    broker: str, run: ResolutionRun
) -> None:
    wrong = worker_env(
        broker,
        DATABASE_URL="postgresql://postgres@127.0.0.1:5432/no_such_database_here",
        CITEREC_WORKER_DATABASE_WAIT="4",
    )
    chunks = ResolutionChunk.objects.filter(run=run).count()
    with workers() as running:
        bad = start_worker(wrong, name="lost", concurrency=2)
        running.append(bad)
        run_dispatch(run_id=run.pk)
        wait_for(lambda: bad.popen.poll() is not None, timeout=60, running=running, what="exit")
        assert bad.popen.returncode != 0
        assert queued(broker) == chunks  # it took nothing
        running.append(start_worker(worker_env(broker), name="healthy", concurrency=1))
        wait_for(lambda: finished(run), timeout=90, running=running, what="the run")
    assert "database unreachable" in bad.stop()
    assert_resolved_once(run)
