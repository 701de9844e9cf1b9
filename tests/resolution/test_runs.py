"""Runs: a chunk does its work or says why, failures are recorded, stuck runs are found again.

These run the jobs in process; tests/resolution/test_runs_workers.py runs them on real workers.
"""

from __future__ import annotations

import datetime as dt
import io
import threading
from typing import Any

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import OperationalError, connection, connections
from django.utils import timezone

from citerec.celery import app
from curation.models import Resolution
from curation.queueing import jobs_waiting
from curation.resolution import selectors, services, tasks
from curation.resolution.models import ResolutionChunk, ResolutionRun, RunStatus
from curation.resolution.services import runs as run_services
from curation.resolution.services.dispatch import QUEUE
from tests.resolution import runs

ACTOR = runs.ACTOR


def make_run(count: int = 12, chunk_size: int = 4) -> ResolutionRun:
    return runs.make_run(count, chunk_size)


def chunks(run: ResolutionRun) -> list[ResolutionChunk]:
    return list(ResolutionChunk.objects.filter(run=run).order_by("number"))


@pytest.mark.django_db
def test_a_chunk_done_already_says_so() -> None:
    run = make_run()
    first = chunks(run)[0]
    assert services.chunk_resolve(chunk_id=first.pk, actor=ACTOR).batch is not None
    again = services.chunk_resolve(chunk_id=first.pk, actor=ACTOR)
    assert (again.batch, again.skipped) == (None, "done already")
    assert tasks.resolve_chunk.delay(first.pk).get() == {
        "chunk": first.pk,
        "skipped": "done already",
    }
    missing = services.chunk_resolve(chunk_id=10**9, actor=ACTOR)
    assert missing.skipped == "no such chunk"
    run.refresh_from_db()
    assert run.done == 4  # counted once


@pytest.mark.django_db(transaction=True)
def test_a_chunk_in_progress_elsewhere_leaves_the_rest_of_its_run_free() -> None:
    """Another worker mid-chunk holds its chunk (and the run is untouched): the others go on."""
    run = make_run()
    first, second, *_ = chunks(run)
    started, release = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def other_worker() -> None:
        # What a worker holds mid-chunk: the chunk row, locked the way chunk_resolve locks it.
        held = connections.create_connection("default")
        try:
            with held.cursor() as cursor:
                cursor.execute("BEGIN")
                cursor.execute(
                    "SELECT id FROM resolution_resolutionchunk WHERE id = %s FOR UPDATE",
                    [first.pk],
                )
                started.set()
                release.wait(30)
                cursor.execute("ROLLBACK")
        finally:
            held.close()

    thread = threading.Thread(target=other_worker)
    thread.start()
    try:
        assert started.wait(30)
        outcome["second"] = services.chunk_resolve(chunk_id=second.pk, actor=ACTOR)
        with pytest.raises(services.ChunkBusy):
            services.chunk_resolve(chunk_id=first.pk, actor=ACTOR)
    finally:
        release.set()
        thread.join()
    assert outcome["second"].batch is not None and outcome["second"].batch.changed == 4
    assert services.chunk_resolve(chunk_id=first.pk, actor=ACTOR).batch is not None


@pytest.mark.django_db(transaction=True)
def test_concurrent_chunks_of_one_run_both_resolve() -> None:
    """Two chunks resolved at the same time in two connections: neither is skipped."""
    run = make_run(count=8, chunk_size=4)
    results: list[services.ChunkOutcome] = []

    def work(chunk_id: int) -> None:
        try:
            results.append(services.chunk_resolve(chunk_id=chunk_id, actor=ACTOR))
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(c.pk,)) for c in chunks(run)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.skipped for r in results] == [None, None]
    run.refresh_from_db()
    assert (run.status, run.done) == (RunStatus.DONE, 8)


@pytest.mark.django_db
def test_database_errors_are_retried_then_recorded_and_resume_finishes(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    run = make_run()
    calls: list[int] = []
    real = services.observations_resolve

    def unreachable(**kwargs: Any) -> services.BatchOutcome:
        calls.append(1)
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(run_services, "observations_resolve", unreachable)
    first = chunks(run)[0]
    monkeypatch.setitem(app.conf, "task_eager_propagates", False)
    result = tasks.resolve_chunk.apply(args=[first.pk])  # the retries run in process at once
    assert isinstance(result.result, OperationalError)
    assert len(calls) == tasks.ChunkTask.max_retries + 1  # retried, then given up
    run.refresh_from_db()
    first.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.errors == ["chunk 0: OperationalError: server closed the connection unexpectedly"]
    assert first.done_at is None and "OperationalError" in first.last_error
    assert not Resolution.objects.exists()

    monkeypatch.setattr(run_services, "observations_resolve", real)
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):  # as outside a test's transaction
        call_command("resolve", "--resume", str(run.pk), stdout=out)  # tasks run in process here
    run.refresh_from_db()
    assert (run.status, run.done, run.total) == (RunStatus.DONE, 12, 12)
    assert Resolution.objects.count() == 12


@pytest.mark.django_db
def test_resume_of_a_finished_run_does_nothing() -> None:
    run = make_run(count=4)
    call_command("resolve", "--resume", str(run.pk), "--sync", stdout=io.StringIO(), verbosity=0)
    out = io.StringIO()
    call_command("resolve", "--resume", str(run.pk), stdout=out)
    assert out.getvalue().strip() == f"run {run.pk}: done already (4/4)"


@pytest.mark.django_db
def test_a_stale_run_is_found_and_queued_again(django_capture_on_commit_callbacks: Any) -> None:
    stale = make_run(count=8)
    old = timezone.now() - dt.timedelta(hours=1)
    ResolutionRun.objects.filter(pk=stale.pk).update(created_at=old, dispatched_at=old)
    services.chunk_resolve(chunk_id=chunks(stale)[0].pk, actor=ACTOR)
    ResolutionChunk.objects.filter(run=stale).update(started_at=old)
    ResolutionChunk.objects.filter(run=stale, done_at__isnull=False).update(done_at=old)
    fresh = services.run_create(
        observations=selectors.select_observations(everything=True), selection={"all": True},
        actor=ACTOR, reason="fresh", chunk_size=4,
    )  # fmt: skip
    assert selectors.stale_runs(minutes=15) == [stale.pk]  # the fresh one was just created
    with django_capture_on_commit_callbacks(execute=True):  # as outside a test's transaction
        assert tasks.redispatch_stale_runs.delay().get() == [stale.pk]  # in process: resolves it
    stale.refresh_from_db()
    assert (stale.status, stale.done) == (RunStatus.DONE, 8)
    assert selectors.stale_runs(minutes=15) == []
    assert ResolutionRun.objects.get(pk=fresh.pk).status == RunStatus.QUEUED


@pytest.mark.django_db
def test_admin_action_resumes_runs(admin_client: Any, django_capture_on_commit_callbacks: Any) -> None:
    run = make_run(count=4)
    with django_capture_on_commit_callbacks(execute=True):  # as outside a test's transaction
        response = admin_client.post(
            "/admin/resolution/resolutionrun/",
            {"action": "resume_runs", "_selected_action": [run.pk]},
            follow=True,
        )
    messages = [str(m) for m in response.context["messages"]]
    assert messages == [f"run {run.pk}: 1 unfinished chunks queued again"], response.content[-3000:]
    run.refresh_from_db()
    assert run.status == RunStatus.DONE  # tasks run in process in tests


@pytest.mark.django_db
def test_a_job_delivered_again_gets_the_run_it_made_not_a_second_one(
    django_capture_on_commit_callbacks: Any,
) -> None:
    make_run(count=10, chunk_size=4)
    ResolutionRun.objects.all().delete()  # keep the observations, start from no run
    job = "4b1c0d5e-job-delivered-twice"
    with django_capture_on_commit_callbacks(execute=True):  # as outside a test's transaction
        delivery = tasks.resolve_batch.apply(
            kwargs={"reason": "all", "everything": True}, task_id=job
        )
    run = ResolutionRun.objects.get(pk=delivery.get())
    assert (run.selection, run.total, run.status) == (
        {"state": None, "all": True, "job": job}, 10, RunStatus.DONE,
    )  # fmt: skip
    assert [len(c.observation_ids) for c in chunks(run)] == [10]
    again = tasks.resolve_batch.apply(kwargs={"reason": "all", "everything": True}, task_id=job)
    assert again.get() == run.pk
    assert ResolutionRun.objects.count() == 1 and ResolutionChunk.objects.count() == 1
    assert Resolution.objects.count() == 10
    events = apps.get_model("curation", "ResolutionEvent").objects
    assert events.count() == 10  # the second delivery resolved nothing again
    other = tasks.resolve_batch.apply(kwargs={"reason": "all", "everything": True})
    assert other.get() != run.pk  # another job is another run


@pytest.mark.django_db
def test_run_creation_streams_a_selection_into_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_services, "RUN_CREATE_BATCH", 2)  # several chunk statements
    run = make_run(count=11, chunk_size=2)
    got = chunks(run)
    assert [c.number for c in got] == [0, 1, 2, 3, 4, 5] and run.total == 11
    ids = [i for c in got for i in c.observation_ids]
    expected = selectors.select_observations(everything=True).values_list("pk", flat=True)
    assert ids == [str(pk) for pk in expected]


@pytest.fixture
def broker_queue() -> Any:
    """Jobs published to the real broker (not run in process); the resolution queue is emptied
    before and after."""
    if not str(app.conf.broker_url).startswith("redis"):
        pytest.skip("needs the Redis broker (REDIS_URL)")
    eager, app.conf.task_always_eager = app.conf.task_always_eager, False

    def purge() -> None:
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(QUEUE)

    purge()
    try:
        yield
    finally:
        purge()
        app.conf.task_always_eager = eager


@pytest.mark.django_db
def test_a_run_waiting_behind_a_backlog_is_not_queued_again(
    broker_queue: None, django_capture_on_commit_callbacks: Any
) -> None:
    stale = make_run(count=8)
    old = timezone.now() - dt.timedelta(hours=1)
    ResolutionRun.objects.filter(pk=stale.pk).update(created_at=old, dispatched_at=old)
    assert selectors.stale_runs(minutes=15) == [stale.pk]
    tasks.resolve_chunk.delay(chunks(stale)[0].pk)  # a job still waiting its turn
    assert jobs_waiting(QUEUE) == 1
    assert tasks.redispatch_stale_runs.run() == []
    assert jobs_waiting(QUEUE) == 1  # nothing added to the backlog
    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(QUEUE)  # the backlog drained; this run's job lost
    with django_capture_on_commit_callbacks(execute=True):  # as outside a test's transaction
        assert tasks.redispatch_stale_runs.run() == [stale.pk]
    assert jobs_waiting(QUEUE) == 2  # its two unfinished chunks, once each
