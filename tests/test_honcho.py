"""`honcho start` runs web, the two worker pools and beat together on real PostgreSQL and Redis,
and a resolution job goes through the worker and shows on the record page."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from citerec.celery import app
from curation.audit import Actor
from curation.references.listed import ListedReference
from curation.services import record_import, reference_list_import
from tests import records_factory as rf
from tests.conftest import REPO, database_url, free_port

MEGATRON = (
    "Shoeybi, M., Patwary, M., Puri, R. Megatron-LM: Training Multi-Billion Parameter Language "
    "Models Using Model Parallelism. arXiv:1909.08053, 2019."
)


TITLE = "Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism"
VERIFIED = "Verified exact — source pith,"


Ref = ListedReference  # a reference as every reader returns it


def _wait_for(url: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail(f"{url} did not answer")


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_honcho_runs_web_worker_and_beat(redis_url: str, tmp_path: Path) -> None:
    cited = rf.observation("2506.00009", 1, cited="1909.08053", status="verified_exact")
    cited["citation"]["cited_paper"].update(  # the paper the reference names
        title=TITLE, submitted_at="2019-09-17T17:44:44Z", last_updated="2020-03-13T17:34:04Z"
    )
    document = rf.reseal(rf.record("2506.00009", [cited]))
    record_import(document=document, actor=Actor.command("test"), reason="fixture")
    reference_list_import(
        arxiv_id="2506.00001",
        references=[Ref(1, MEGATRON)],
        actor=Actor.importer("test"),
        reason="fixture",
    )
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "DEBUG": "1",
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "WEB_CONCURRENCY": "1",
        "WORKER_CONCURRENCY": "1",
        "CITEREC_DATA_DIR": str(tmp_path),
        "CITEREC_OFFLINE": "1",
        # The Procfile's granian and celery live beside this interpreter (the project's venv).
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    honcho = subprocess.Popen(
        [sys.executable, "-m", "honcho", "start"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{base}/healthz", time.monotonic() + 60)
        assert httpx.get(f"{base}/healthz").json()["broker"] == "redis"
        app.conf.broker_url = redis_url
        app.send_task(
            "curation.resolution.tasks.resolve_paper",
            args=["2506.00001", "honcho test"],
            queue="resolution",
        )
        deadline, page = time.monotonic() + 90, ""
        while time.monotonic() < deadline:
            page = httpx.get(f"{base}/paper/2506.00001/citation-record").text
            if VERIFIED in page:
                break
            time.sleep(1)
        assert VERIFIED in page
        assert 'href="/paper/1909.08053"' in page
    finally:
        os.killpg(honcho.pid, signal.SIGTERM)
        output, _ = honcho.communicate(timeout=60)
    for process in ("web.1", "worker.1", "notices.1", "beat.1"):
        assert f"{process} " in output or f"{process} |" in output, output[-2000:]
