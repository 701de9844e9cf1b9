"""The one road to the queue (curation/queueing.py): services queue follow-up jobs by task name,
once their transaction commits, on the queue the task's module is routed to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
import redis
from django.db import transaction

from curation.audit import Actor
from curation.ingestion.models import PaperIngestion
from curation.ingestion.services import papers_add
from curation.ingestion.tasks import ingest_paper
from curation.queueing import UnknownTask, queue_on_commit
from curation.resolution.services import unresolved_requeue
from tests.workers import REPO, _key, broker  # noqa: F401 - the real-broker fixture

ACTOR = Actor.command("test_queueing")


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    """Record the paper jobs sent (args, kwargs) instead of running them."""
    calls: list[tuple[Any, Any]] = []
    monkeypatch.setattr(
        ingest_paper, "apply_async", lambda args, kwargs: calls.append((args, kwargs))
    )
    return calls


@pytest.mark.django_db
def test_a_service_whose_transaction_rolls_back_queues_nothing(
    sent: list[tuple[Any, Any]], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            papers_add(arxiv_ids=["2401.00001"], actor=ACTOR, reason="rolled back")
            raise RuntimeError("the caller's write failed after asking for the paper")
    assert sent == [] and callbacks == []
    assert not PaperIngestion.objects.exists()


@pytest.mark.django_db
def test_a_service_queues_only_once_its_transaction_commits(
    sent: list[tuple[Any, Any]], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            papers_add(arxiv_ids=["2401.00001"], actor=ACTOR, reason="committed")
            assert sent == []  # not yet: a worker would not find the paper's row
        assert sent == []  # the outer (test) transaction still holds it
    assert sent == [(("2401.00001",), {"reason": "committed", "force": False})]


@pytest.mark.django_db
def test_an_unknown_task_name_fails_inside_the_transaction() -> None:
    with pytest.raises(UnknownTask, match="curation.ingestion.tasks.no_such_job"):
        queue_on_commit("curation.ingestion.tasks.no_such_job", ["2401.00001"])


def _messages(redis_url: str, queue: str) -> list[dict[str, Any]]:
    """Return the messages waiting on a broker queue, decoded (kombu's Redis transport)."""
    raw = redis.Redis.from_url(redis_url).lrange(_key(queue), 0, -1)
    return [json.loads(item) for item in raw]


@pytest.mark.services
@pytest.mark.django_db
def test_a_committed_service_queues_by_name_on_the_task_s_queue(
    broker: str,  # noqa: F811 - the fixture imported above
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        papers_add(arxiv_ids=["2401.00001", "2401.00002"], actor=ACTOR, reason="committed")
        unresolved_requeue()
    papers = _messages(broker, "ingestion")
    assert [m["headers"]["task"] for m in papers] == ["curation.ingestion.tasks.ingest_paper"] * 2
    assert sorted(m["headers"]["argsrepr"] for m in papers) == ["('2401.00001',)", "('2401.00002',)"]
    requeue = _messages(broker, "resolution")
    assert [m["headers"]["task"] for m in requeue] == ["curation.resolution.tasks.requeue_after_import"]
    assert _messages(broker, "default") == []


def test_faces_import_no_tasks_module_yet_eager_jobs_run_by_name() -> None:
    """In a web process (Django set up, the admin discovered, every URL loaded) no tasks module
    is imported; queueing a job by name still finds its task (loaded as a worker loads them)."""
    script = (
        "import sys, django; django.setup(); import citerec.urls\n"
        "from django.urls import get_resolver; get_resolver().url_patterns\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('curation') and m.endswith('tasks'))\n"
        "assert loaded == [], loaded\n"
        "from curation.queueing import registered_task\n"
        "print(registered_task('curation.notices.tasks.refresh_works').name)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
        check=False, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("curation.notices.tasks.refresh_works")
