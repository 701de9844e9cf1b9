"""Papers in through real Celery workers (Redis, PostgreSQL, the Procfile's queues), and a
worker killed mid-ingestion losing nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.apps import apps
from django.db import connections
from rest_framework.test import APIClient

from curation.audit import Actor
from curation.ingestion.models import IngestionState, PaperIngestion
from curation.ingestion.services import papers_add
from curation.models import Observation
from tests.ingestion.conftest import dev_source
from tests.resolution.test_runs_workers import waiting_backend
from tests.workers import start_worker, wait_for, worker_env, workers

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

PAPER = "2401.00001"
ACTOR = Actor.command("test")


def arxiv_env(broker: str, fake, tmp_path: Path, **extra: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Return a worker's environment pointing at the fake arXiv (as the fixture does in process)."""
    return worker_env(
        broker,
        ARXIV_OAI_URL=fake.server.url_for("/oai"),
        ARXIV_EPRINT_URL=fake.server.url_for("/e-print"),
        ARXIV_REQUEST_INTERVAL="0",
        CITEREC_SOURCE_STORE=str(tmp_path / "worker-sources"),
        CITEREC_OFFLINE="0",
        **extra,
    )


def done(arxiv_id: str = PAPER) -> bool:
    return PaperIngestion.objects.filter(paper__arxiv_id=arxiv_id, state=IngestionState.DONE).exists()


def test_add_papers_on_real_workers_then_the_api_serves_the_record(broker: str, fake_arxiv, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record(PAPER, title="Eyewall replacement")
    fake_arxiv.add_eprint(PAPER, dev_source("Eyewall__2018jas"))
    fake_arxiv.add_record("2401.00002", title="Dust morphology")
    fake_arxiv.add_eprint("2401.00002", dev_source("kdpenner__dustmorph"))
    with workers() as running:
        running.append(start_worker(arxiv_env(broker, fake_arxiv, tmp_path), name="ingest", concurrency=2))
        outcome = papers_add(arxiv_ids=[PAPER, "2401.00002"], actor=ACTOR)
        assert outcome.queued == [PAPER, "2401.00002"]
        wait_for(lambda: done() and done("2401.00002"), timeout=120, running=running, what="both papers")
        output = running[0].stop()
    assert "curation.ingestion.tasks.ingest_paper" in output
    record = APIClient().get(f"/api/v1/records/{PAPER}")
    assert record.status_code == 200
    assert record.json()["reference_resolution"]["total_outbound_references"] == 19
    assert Observation.objects.filter(paper__arxiv_id="2401.00002", resolution__isnull=False).count() == 54


def test_a_worker_killed_mid_ingestion_loses_nothing(broker: str, fake_arxiv, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record(PAPER, title="Eyewall replacement")
    fake_arxiv.add_eprint(PAPER, dev_source("Eyewall__2018jas"))
    short = arxiv_env(broker, fake_arxiv, tmp_path, CELERY_VISIBILITY_TIMEOUT="3")
    other = connections.create_connection("default")
    with workers() as running:
        try:
            with other.cursor() as cursor:
                papers_add(arxiv_ids=[PAPER], actor=ACTOR)  # the paper row exists from here
                cursor.execute("BEGIN")
                # The worker's first write (the paper's metadata) waits on this lock: mid-ingestion.
                cursor.execute("SELECT id FROM curation_paper WHERE arxiv_id = %s FOR UPDATE", [PAPER])
                doomed = start_worker(short, name="doomed", concurrency=1)
                running.append(doomed)
                wait_for(lambda: waiting_backend() is not None, timeout=60, running=running, what="mid-ingestion")
                assert PaperIngestion.objects.get().state == IngestionState.FETCHING
                doomed.kill_main()
                doomed.stop()  # the whole machine is gone: its pool process too
                cursor.execute("ROLLBACK")
        finally:
            other.close()
        running.append(start_worker(short, name="heir", concurrency=1))
        wait_for(done, timeout=120, running=running, what="the paper")
    ingestion = PaperIngestion.objects.get()
    assert (ingestion.state, ingestion.reference_count, ingestion.error) == (IngestionState.DONE, 19, "")
    assert ingestion.attempts == 2
    observations = Observation.objects.filter(paper__arxiv_id=PAPER)
    assert observations.count() == 19 and observations.filter(resolution__isnull=False).count() == 19
    inserts = apps.get_model("curation", "ObservationEvent").objects.filter(pgh_label="insert")
    assert inserts.count() == 19  # each reference created once
