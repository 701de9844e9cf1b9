"""A real Celery worker, on Redis, runs a task that writes with its history context.

More worker tests (two pool processes, two workers, killed workers, lost connections) are in
tests/resolution/test_runs_workers.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citerec.celery import app
from curation.models import ObservationEvent
from tests.workers import broker_clear, start_worker, wait_for, worker_env, workers


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_worker_runs_import_task_with_history_context(
    redis_url: str, sample_record_path: Path
) -> None:
    broker_clear(redis_url)
    app.conf.broker_url = redis_url
    with workers() as running:
        running.append(start_worker(worker_env(redis_url), name="import", pool="solo"))
        result = app.send_task(
            "curation.tasks.import_record_file",
            args=[str(sample_record_path), "worker test import"],
            queue="default",
        )
        # Only this task's events: the worker may go on with other jobs (resolution, notices).
        mine = ObservationEvent.objects.filter(pgh_context__metadata__task_id=result.id)
        wait_for(lambda: mine.count() >= 33, timeout=60, running=running, what="the import")
        output = running[0].stop()

    assert mine.count() == 33, output[-3000:]
    metadata = mine.select_related("pgh_context").first().pgh_context.metadata  # type: ignore[union-attr]
    assert metadata["actor"] == "task:curation.tasks.import_record_file"
    assert metadata["source"] == "task"
    assert metadata["task_id"] == result.id
    assert metadata["reason"] == "worker test import"


def test_pool_processes_freeze_what_they_loaded_and_collect_less() -> None:
    """A pool process's start keeps the parser's and the venues' tables out of the collector's
    walks (and its first job does not load the venues' 0.8 s of tables)."""
    import gc

    from citerec.celery import GC_THRESHOLDS, _collect_less
    from curation.resolution import venues

    tables = (venues._ltwa, venues._stopwords, venues._inspire)
    for table in tables:
        table.cache_clear()
    before = gc.get_threshold()
    try:
        _collect_less()
        assert [table.cache_info().currsize for table in tables] == [1, 1, 1]
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 10_000  # the app, Django and the parser's lexicons
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
