"""A real Celery worker, on Redis, runs a task that writes with its history context."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citerec.celery import app
from curation.models import ObservationEvent
from tests.conftest import database_url

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_worker_runs_import_task_with_history_context(
    redis_url: str, sample_record_path: Path
) -> None:
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": redis_url, "DEBUG": "1"}
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "citerec",
            "worker",
            "--pool=solo",
            "--concurrency=1",
            "-Q",
            "default,resolution,notices,crossref",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
            "-n",
            f"test-{os.getpid()}@%h",
            "--loglevel=INFO",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        app.conf.broker_url = redis_url
        result = app.send_task(
            "curation.tasks.import_record_file",
            args=[str(sample_record_path), "worker test import"],
            queue="default",
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not ObservationEvent.objects.exists():
            if worker.poll() is not None:
                pytest.fail(f"worker exited: {worker.stdout.read() if worker.stdout else ''}")
            time.sleep(0.3)
    finally:
        worker.terminate()
        output, _ = worker.communicate(timeout=30)

    events = ObservationEvent.objects.select_related("pgh_context")
    assert events.count() == 33, output[-3000:]
    metadata = events.first().pgh_context.metadata  # type: ignore[union-attr]
    assert metadata["actor"] == "task:curation.tasks.import_record_file"
    assert metadata["source"] == "task"
    assert metadata["task_id"] == result.id
    assert metadata["reason"] == "worker test import"
