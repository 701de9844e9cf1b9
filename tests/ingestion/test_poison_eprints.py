"""An e-print that kills its worker (past the hard time limit, or killed outright) fails its
paper with the reason, after at most two attempts, and nothing queues it again (issue 39, 3).

Real workers on real Redis and PostgreSQL, the fake arXiv serving an e-print the test builds:
a long but legal bibliography, whose reading and resolution outlast a hard time limit of a few
seconds (CELERY_TASK_TIME_LIMIT, set for the test's worker).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from curation.audit import Actor
from curation.ingestion import tasks
from curation.ingestion.models import IngestionState, PaperIngestion
from curation.ingestion.services import papers_add
from tests.clients.arxiv.fake_arxiv import gzipped
from tests.ingestion.test_workers import arxiv_env
from tests.workers import Worker, queued, start_worker, wait_for, workers

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

PAPER = "2401.00001"
ACTOR = Actor.command("test")


def slow_eprint(references: int = 10_000) -> bytes:
    """Return a one-file e-print listing `references` distinct references."""
    items = "".join(
        f"\\bibitem{{k{i}}} A. Author{i} and B. Other, A study of case {i}, "
        f"Phys. Rev. D {i % 90 + 10}, {i + 1000} ({1990 + i % 30}).\n"
        for i in range(references)
    )
    return gzipped(
        "\\documentclass{article}\\begin{document}\\begin{thebibliography}{99}\n"
        f"{items}\\end{{thebibliography}}\\end{{document}}\n"
    )


def ingestion() -> PaperIngestion:
    return PaperIngestion.objects.get(paper__arxiv_id=PAPER)


def settled() -> bool:
    return ingestion().state not in (IngestionState.QUEUED, IngestionState.FETCHING,
                                     IngestionState.RESOLVING)  # fmt: skip


def nothing_queues_it_again(broker: str) -> None:
    """The stale sweep (everything counts as stale with minutes=0) leaves a failed paper be."""
    assert tasks.requeue_stale_ingestions.apply(kwargs={"minutes": 0}).get() == []
    assert queued(broker, "ingestion") == 0
    assert ingestion().state == IngestionState.FAILED


def limits(monkeypatch: pytest.MonkeyPatch, hard: int, soft: int | None) -> dict[str, str]:
    """Set the time limits of paper jobs where they are sent (a job's message carries them,
    as the sender's settings say) and where they run; return the worker's environment."""
    monkeypatch.setattr(tasks.ingest_paper, "time_limit", hard)
    monkeypatch.setattr(tasks.ingest_paper, "soft_time_limit", soft)
    monkeypatch.setattr(tasks.ingest_paper, "_exec_options", None)  # Celery's cache of them
    return {"CELERY_TASK_TIME_LIMIT": str(hard), "CELERY_TASK_SOFT_TIME_LIMIT": str(soft or 0)}


def test_a_paper_past_the_hard_time_limit_fails_with_the_reason(
    broker: str, fake_arxiv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record(PAPER, title="A long bibliography")
    fake_arxiv.add_eprint(PAPER, slow_eprint())
    env = arxiv_env(broker, fake_arxiv, tmp_path, **limits(monkeypatch, 3, None))
    with workers() as running:
        running.append(start_worker(env, name="poisoned", concurrency=1))
        papers_add(arxiv_ids=[PAPER], actor=ACTOR)
        wait_for(settled, timeout=120, running=running, what="the paper to fail")
        output = running[0].stop()
    found = ingestion()
    assert found.state == IngestionState.FAILED, (found.state, found.error, output[-3000:])
    assert (
        found.error == "the job was killed past its hard time limit of 3 s (CELERY_TASK_TIME_LIMIT)"
    )
    assert found.attempts <= 2
    assert "Hard time limit (3" in output
    nothing_queues_it_again(broker)


def test_a_soft_time_limit_fails_the_paper_saying_so(
    broker: str, fake_arxiv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record(PAPER, title="A long bibliography")
    fake_arxiv.add_eprint(PAPER, slow_eprint())
    env = arxiv_env(broker, fake_arxiv, tmp_path, **limits(monkeypatch, 100, 2))
    with workers() as running:
        running.append(start_worker(env, name="soft", concurrency=1))
        papers_add(arxiv_ids=[PAPER], actor=ACTOR)
        wait_for(settled, timeout=120, running=running, what="the paper to fail")
    found = ingestion()
    assert found.state == IngestionState.FAILED, (found.state, found.error)
    assert found.error == "the job ran past its time limit of 2 s (CELERY_TASK_SOFT_TIME_LIMIT)"
    assert found.attempts == 1
    nothing_queues_it_again(broker)


def kill_pool_process(worker: Worker) -> None:
    (child,) = worker.children()
    os.kill(child, signal.SIGKILL)


def test_a_paper_that_kills_its_worker_twice_is_failed_not_redelivered_forever(
    broker: str, fake_arxiv, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    # Killed outright (the kernel's OOM killer, a segfault): the pool process dies, the broker
    # delivers the job again (acks_late, reject_on_worker_lost). The third delivery fails it.
    fake_arxiv.add_record(PAPER, title="A long bibliography")
    fake_arxiv.add_eprint(PAPER, slow_eprint())
    env = arxiv_env(broker, fake_arxiv, tmp_path)
    with workers() as running:
        worker = start_worker(env, name="killed", concurrency=1)
        running.append(worker)
        papers_add(arxiv_ids=[PAPER], actor=ACTOR)
        for attempt in (1, 2):
            wait_for(lambda a=attempt: ingestion().attempts == a,  # type: ignore[misc]
                     timeout=120, running=running, what=f"attempt {attempt}")  # fmt: skip
            assert ingestion().interrupted == attempt - 1
            kill_pool_process(worker)
        wait_for(settled, timeout=120, running=running, what="the paper to fail")
    found = ingestion()
    assert found.state == IngestionState.FAILED, (found.state, found.error)
    assert found.error.startswith("2 attempts in a row never ended: the worker was killed")
    assert found.attempts == 2 and found.interrupted == 0
    nothing_queues_it_again(broker)
    # Asked for again by a person, it gets two fresh attempts.
    papers_add(arxiv_ids=[PAPER], actor=ACTOR)
    assert ingestion().state == IngestionState.QUEUED


def test_every_job_has_a_soft_and_a_hard_time_limit() -> None:
    from django.conf import settings

    from citerec.celery import app

    ours = {name: task for name, task in app.tasks.items() if name.startswith("curation.")}
    assert ours
    for name, task in ours.items():
        assert (task.soft_time_limit, task.time_limit) == (
            settings.CELERY_TASK_SOFT_TIME_LIMIT, settings.CELERY_TASK_TIME_LIMIT,
        ), name  # fmt: skip
    assert 0 < settings.CELERY_TASK_SOFT_TIME_LIMIT < settings.CELERY_TASK_TIME_LIMIT
    assert settings.CELERY_TASK_TIME_LIMIT < settings.BROKER_VISIBILITY_TIMEOUT


def test_a_list_past_the_reference_cap_says_so_on_the_ingestion(fake_arxiv, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from django.contrib.admin.sites import site
    from rest_framework.test import APIClient

    from tests.ingestion.conftest import add_papers

    monkeypatch.setattr(django_settings, "CITEREC_MAX_SOURCE_REFERENCES", 5)
    fake_arxiv.add_record(PAPER, title="A long bibliography")
    fake_arxiv.add_eprint(PAPER, slow_eprint(references=12))
    add_papers(PAPER)
    found = ingestion()
    warning = (
        "the bibliography lists 12 references: only the first 5 are read, "
        "the limit of 5 (CITEREC_MAX_SOURCE_REFERENCES)"
    )
    assert (found.state, found.reference_count) == (IngestionState.DONE, 5)
    assert found.warnings[0] == warning
    assert APIClient().get(f"/api/v1/ingestions/{PAPER}").json()["warnings"][0] == warning
    assert site._registry[PaperIngestion].why(found) == warning  # the admin's list column
