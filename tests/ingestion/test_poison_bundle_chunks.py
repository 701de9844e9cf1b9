"""A bundle chunk with an e-print that kills its worker is not delivered again and again: after
two takes that never ended, the next reads the chunk's papers one at a time, the one being read
marked first; the poison is failed alone, with the reason, the good papers are kept, the chunk
finishes and nothing queues the poison again (issue 39, item 3).

Real workers on real Redis and PostgreSQL; "killed" is SIGKILL to the pool process, what the
kernel's OOM killer does (the hard time limit kills it the same way).
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import transaction

from curation.ingestion import tasks
from curation.ingestion.models import (
    IngestionState,
    PaperIngestion,
    SourceBundle,
    SourceBundleChunk,
)
from tests.ingestion.conftest import dev_source
from tests.ingestion.test_poison_eprints import kill_pool_process, slow_eprint
from tests.workers import Worker, queued, start_worker, wait_for, worker_env, workers

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

GOOD = ["2401.00001", "2401.00002", "2401.00004"]
POISON = "2401.00003"  # third in its chunk


def _bundle(tmp_path: Path) -> Path:
    path = tmp_path / "arXiv_src_2401_001.tar"
    sources = {
        GOOD[0]: dev_source("Eyewall__2018jas").read_bytes(),
        GOOD[1]: dev_source("kdpenner__dustmorph").read_bytes(),
        POISON: slow_eprint(),
        GOOD[2]: dev_source("Eyewall__2018jas").read_bytes(),
    }
    with tarfile.open(path, "w") as tar:
        for arxiv_id, data in sorted(sources.items()):
            info = tarfile.TarInfo(f"2401/{arxiv_id}.gz")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def chunk() -> SourceBundleChunk:
    return SourceBundleChunk.objects.get()


def held_by_a_new_pool_process(worker: Worker, killed: list[int]) -> bool:
    """Return whether a pool process not killed yet holds the chunk (its row lock)."""
    if set(worker.children()) & set(killed) or not worker.children():
        return False
    with transaction.atomic():
        return not SourceBundleChunk.objects.select_for_update(skip_locked=True).exists()


def states() -> dict[str, str]:
    return dict(PaperIngestion.objects.values_list("paper__arxiv_id", "state"))


def test_a_chunk_whose_poison_kills_its_worker_keeps_its_good_papers(
    broker: str, tmp_path: Path
) -> None:
    path = _bundle(tmp_path)
    call_command("ingest_source_bundle", str(path), "--chunk-size", "4", stdout=io.StringIO())
    with workers() as running:
        worker = start_worker(worker_env(broker), name="bundle", concurrency=1)
        running.append(worker)
        killed: list[int] = []
        for take in (1, 2):  # the whole chunk, in one transaction: nothing of it is kept
            wait_for(lambda k=killed: held_by_a_new_pool_process(worker, k),  # type: ignore[misc]
                     timeout=120, running=running, what=f"take {take}")  # fmt: skip
            killed += worker.children()
            kill_pool_process(worker)
        assert chunk().interrupted == 2 and not states()
        # The third take reads one paper at a time: killed while reading the poison.
        wait_for(lambda: chunk().reading == 2, timeout=120, running=running, what="the poison read")
        assert {states()[a] for a in GOOD[:2]} == {IngestionState.DONE}
        kill_pool_process(worker)
        wait_for(lambda: chunk().done_at is not None, timeout=120, running=running,
                 what="the chunk to finish")  # fmt: skip
    assert states() == {
        GOOD[0]: IngestionState.DONE, GOOD[1]: IngestionState.DONE,
        POISON: IngestionState.FAILED, GOOD[2]: IngestionState.DONE,
    }  # fmt: skip
    poison = PaperIngestion.objects.get(paper__arxiv_id=POISON)
    assert poison.error.startswith(f"{path.name}: 2401/{POISON}.gz: its reading never ended: "
                                   "the worker was killed while reading it")  # fmt: skip
    finished = chunk()
    assert (finished.interrupted, finished.reading, finished.next_item) == (0, None, 4)
    bundle = SourceBundle.objects.get()
    assert (bundle.done, bundle.failed, bundle.finished_at is not None) == (3, 1, True)
    # Nothing brings the poison back: not the stale sweep, not the bundle run again.
    assert tasks.requeue_stale_ingestions.apply(kwargs={"minutes": 0}).get() == []
    assert "0 chunks to do" in _ingest_again(path)
    assert queued(broker, "ingestion") == 0


def _ingest_again(path: Path) -> str:
    out = io.StringIO()
    call_command("ingest_source_bundle", str(path), "--chunk-size", "4", stdout=out)
    return out.getvalue()




@pytest.mark.django_db(transaction=False)
def test_a_chunk_at_its_soft_time_limit_goes_on_one_paper_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    # The poison outlasts every take's soft time limit. The whole chunk stops (nothing kept) and
    # is queued again, read one paper at a time: the good papers before it are kept, the take
    # stops at it; the next take, stopped by it alone, fails it with the reason and goes on.
    from celery.exceptions import SoftTimeLimitExceeded

    from curation.ingestion.services import bundles

    real_ingest, read = bundles._item_ingest, []

    def ingest(path: Path, item, *args):  # type: ignore[no-untyped-def]
        read.append(item.arxiv_id)
        if item.arxiv_id == POISON:
            raise SoftTimeLimitExceeded()
        return real_ingest(path, item, *args)

    monkeypatch.setattr(bundles, "_item_ingest", ingest)
    path = _bundle(tmp_path)
    # (jobs run at once in tests, here once the command's writes "commit": each take queued
    # again ran after the one before)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("ingest_source_bundle", str(path), "--chunk-size", "4", stdout=io.StringIO())
    takes = [GOOD[0], GOOD[1], POISON]
    assert read == takes + takes + [POISON, GOOD[2]]
    assert states() == {
        GOOD[0]: IngestionState.DONE, GOOD[1]: IngestionState.DONE,
        POISON: IngestionState.FAILED, GOOD[2]: IngestionState.DONE,
    }  # fmt: skip
    assert PaperIngestion.objects.get(paper__arxiv_id=POISON).error == (
        f"{path.name}: 2401/{POISON}.gz: reading it alone ran past the time limit of 480 s "
        "(CELERY_TASK_SOFT_TIME_LIMIT)"
    )
    assert chunk().done_at is not None
    bundle = SourceBundle.objects.get()
    assert (bundle.done, bundle.failed) == (3, 1)
