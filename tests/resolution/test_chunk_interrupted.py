"""A chunk whose worker is killed twice (out of memory, a crash) is failed with the reason, not
delivered again and again, and the stale-run sweep leaves its run be (issue 39, item 3).

In process: a take "killed" raises SystemExit out of the resolver, so none of the job's ending
hooks (retry, failure) runs, as when the pool process dies.
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from curation.resolution import selectors, services, tasks
from curation.resolution.models import ResolutionChunk, ResolutionRun, RunStatus
from curation.resolution.services import runs as run_services
from tests.resolution import runs


def _killed(**kwargs: Any) -> None:
    raise SystemExit("killed mid-chunk")


@pytest.mark.django_db
def test_a_chunk_whose_takes_never_ended_twice_is_failed_and_not_queued_again(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    run = runs.make_run(8, 4)
    first = ResolutionChunk.objects.filter(run=run).order_by("number").first()
    assert first is not None
    real = run_services.observations_resolve
    monkeypatch.setattr(run_services, "observations_resolve", _killed)
    for _ in range(2):
        with pytest.raises(SystemExit):
            services.chunk_resolve(chunk_id=first.pk, actor=runs.ACTOR)
    monkeypatch.setattr(run_services, "observations_resolve", real)

    third = services.chunk_resolve(chunk_id=first.pk, actor=runs.ACTOR)
    assert (third.batch, third.skipped) == (None, "its takes never ended")
    run.refresh_from_db()
    first.refresh_from_db()
    assert run.status == RunStatus.FAILED and first.done_at is None
    assert first.last_error.startswith("2 takes in a row never ended: the worker was killed")
    assert run.errors == [f"chunk 0: {first.last_error}"]

    old = timezone.now() - dt.timedelta(hours=1)
    ResolutionRun.objects.filter(pk=run.pk).update(created_at=old, dispatched_at=old)
    ResolutionChunk.objects.filter(run=run).update(started_at=old)
    assert selectors.stale_runs(minutes=15) == []
    assert tasks.redispatch_stale_runs.delay().get() == []

    # Resumed by a person, the chunk gets fresh takes.
    with django_capture_on_commit_callbacks(execute=True):  # as outside a test's transaction
        call_command("resolve", "--resume", str(run.pk), stdout=io.StringIO())
    run.refresh_from_db()
    assert (run.status, run.done) == (RunStatus.DONE, 8)


@pytest.mark.django_db
def test_a_take_that_ended_is_not_counted_as_interrupted() -> None:
    run = runs.make_run(8, 4)
    first = ResolutionChunk.objects.filter(run=run).order_by("number").first()
    assert first is not None
    ResolutionChunk.objects.filter(pk=first.pk).update(interrupted=2)  # two takes killed
    services.chunk_take_ended(chunk_id=first.pk)  # then one retried after an outage
    assert services.chunk_resolve(chunk_id=first.pk, actor=runs.ACTOR).batch is not None
