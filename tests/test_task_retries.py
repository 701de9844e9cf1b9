"""Jobs are not lost when the database goes away under a worker (hardening issue, item 5).

A worker keeps its database connection between jobs (CONN_MAX_AGE). When the server drops it
while the worker is idle (restart, failover), the next job must run on a new connection, not
fail on the dead one and be acknowledged as done; and a job that meets an outage mid-way is
retried, whatever its kind.
"""

from __future__ import annotations

import pytest
from django.db import connection

from citerec.celery import DATABASE_UNAVAILABLE, app
from curation.resolution.models import ResolutionRun, RunStatus
from tests.resolution.runs import make_run
from tests.workers import Worker, broker_clear, start_worker, wait_for, worker_env, workers


def test_every_job_retries_database_outages() -> None:
    app.loader.import_default_modules()  # what a worker imports at start: every app's tasks
    ours = {name: task for name, task in app.tasks.items() if name.startswith("curation.")}
    assert len(ours) >= 15  # every app's tasks are registered (autodiscovery)
    missing = sorted(
        name
        for name, task in ours.items()
        if not set(DATABASE_UNAVAILABLE) <= set(getattr(task, "autoretry_for", ()) or ())
    )
    assert missing == []


def test_measure_citations_keeps_its_name_and_the_crossref_queue() -> None:
    app.loader.import_default_modules()
    name = "curation.crossref.tasks.measure_citations"  # messages queued before its move say so
    assert name in app.tasks
    assert app.amqp.router.route({}, name)["queue"].name == "crossref"


def _terminate_sessions(worker: Worker) -> int:
    """Drop the worker's database sessions as a restarting server would; return how many."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = %s",
            [f"citerec {worker.node}"[:63]],
        )
        return int(cursor.fetchone()[0])


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_job_after_the_server_dropped_the_idle_connection_still_runs(redis_url: str) -> None:
    broker_clear(redis_url)
    app.conf.broker_url = redis_url
    make_run(3, chunk_size=3)  # the catalogue and a citing paper with three references
    runs = ResolutionRun.objects.filter(selection__paper="2501.00001")
    with workers() as running:
        worker = start_worker(worker_env(redis_url), name="dropped", pool="solo")
        running.append(worker)
        app.send_task("curation.resolution.tasks.resolve_paper", args=["2501.00001", "first"])
        done = runs.filter(status=RunStatus.DONE)
        wait_for(lambda: done.count() == 1, timeout=60, running=running, what="the first run")

        assert _terminate_sessions(worker) >= 1  # the worker's kept connection is gone

        app.send_task("curation.resolution.tasks.resolve_paper", args=["2501.00001", "second"])
        wait_for(lambda: runs.count() == 2, timeout=60, running=running, what="the second run")
        output = worker.stop()
    assert "OperationalError" not in output  # checked before use, not failed and retried
