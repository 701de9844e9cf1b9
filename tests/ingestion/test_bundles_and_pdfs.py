"""Source bundles ingested with no network (one bad e-print never stops a chunk; a second run
resumes), and PDF-only papers read by GROBID when it is configured."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest
from django.core.management import call_command
from pytest_httpserver import HTTPServer

from curation.audit import Actor
from curation.clients import grobid
from curation.ingestion.models import IngestionState, PaperIngestion, SourceBundle
from curation.ingestion.services import ingestion_request, paper_ingest
from curation.models import Observation
from tests.clients.arxiv.fake_arxiv import MINIMAL_PDF
from tests.ingestion.conftest import add_papers, dev_source

pytestmark = pytest.mark.django_db

TEI = (Path(__file__).parent / "fixtures" / "grobid_references.tei.xml").read_text()


def _tar_member(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _traversal_eprint() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        _tar_member(tar, "../outside.tex", b"\\documentclass{article}")
    return buffer.getvalue()


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """A bundle of five e-prints: two real sources, a PDF, a hostile archive, a corrupt gzip."""
    path = tmp_path / "arXiv_src_2401_001.tar"
    with tarfile.open(path, "w") as tar:
        _tar_member(tar, "2401/2401.00001.gz", dev_source("Eyewall__2018jas").read_bytes())
        _tar_member(tar, "2401/2401.00002.gz", dev_source("kdpenner__dustmorph").read_bytes())
        _tar_member(tar, "2401/2401.00003.pdf", MINIMAL_PDF)
        _tar_member(tar, "2401/2401.00004.gz", _traversal_eprint())
        _tar_member(tar, "2401/2401.00005.gz", gzip.compress(b"\\documentclass{article}" * 50)[:40])
    return path


def ingest(path: Path, *extra: str) -> str:
    out = io.StringIO()
    call_command("ingest_source_bundle", str(path), "--sync", "--chunk-size", "2", *extra, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def states() -> dict[str, str]:
    return dict(PaperIngestion.objects.values_list("paper__arxiv_id", "state"))


def test_a_bundle_is_ingested_and_one_bad_eprint_never_stops_the_rest(bundle: Path) -> None:
    out = ingest(bundle)

    assert "5 e-prints in 3 chunks; 3 chunks to do" in out
    assert states() == {
        "2401.00001": "done", "2401.00002": "done", "2401.00003": "pdf_only",
        "2401.00004": "failed", "2401.00005": "failed",
    }  # fmt: skip
    assert Observation.objects.filter(paper__arxiv_id="2401.00001", resolution__isnull=False).count() == 19
    assert Observation.objects.filter(paper__arxiv_id="2401.00002").count() == 54
    hostile = PaperIngestion.objects.get(paper__arxiv_id="2401.00004")
    assert "arXiv:2401.00004" in hostile.error and not Observation.objects.filter(paper=hostile.paper).exists()
    finished = SourceBundle.objects.get()
    assert finished.finished_at is not None and finished.total == 5
    assert (finished.done, finished.failed) == (3, 2)  # the refused and the corrupt e-print failed

    # Run again: nothing left to do, nothing changes.
    before = Observation.objects.count()
    assert "0 chunks to do" in ingest(bundle)
    assert Observation.objects.count() == before


def test_a_stopped_bundle_resumes_with_the_chunks_not_done(bundle: Path) -> None:
    from curation.ingestion.services import bundle_chunk_ingest, bundle_register

    registered, pending = bundle_register(path=bundle, chunk_size=2)
    bundle_chunk_ingest(chunk_id=pending[0], actor=Actor.importer("test"), reason="first chunk only")
    assert set(states()) == {"2401.00001", "2401.00002"}

    out = ingest(bundle)
    assert "2 chunks to do" in out
    assert len(states()) == 5
    # A chunk delivered again after it was done does nothing.
    again = bundle_chunk_ingest(chunk_id=pending[0], actor=Actor.importer("test"), reason="again")
    assert again.skipped == "done already"


def test_a_pdf_only_paper_is_read_by_grobid_when_it_is_configured(fake_arxiv, httpserver: HTTPServer, settings) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record("2401.00003", title="A paper as a PDF")
    fake_arxiv.add_eprint("2401.00003", MINIMAL_PDF)
    settings.GROBID_URL = ""
    add_papers("2401.00003")
    assert PaperIngestion.objects.get().state == IngestionState.PDF_ONLY

    httpserver.expect_request("/grobid/api/processReferences", method="POST").respond_with_data(TEI, content_type="application/xml")
    settings.GROBID_URL = httpserver.url_for("/grobid")
    from django.test import TestCase

    from curation.ingestion.tasks import requeue_stale_ingestions

    with TestCase.captureOnCommitCallbacks(execute=True):
        assert requeue_stale_ingestions.apply().get() == ["2401.00003"]
    done = PaperIngestion.objects.get()
    assert (done.state, done.method, done.reference_count) == (IngestionState.DONE, "grobid", 12)
    assert Observation.objects.filter(paper__arxiv_id="2401.00003", resolution__isnull=False).count() == 12


def test_grobid_busy_is_retried_later_and_a_refused_pdf_fails_saying_why(fake_arxiv, httpserver: HTTPServer, settings) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record("2401.00003", title="A paper as a PDF")
    fake_arxiv.add_eprint("2401.00003", MINIMAL_PDF)
    settings.GROBID_URL = httpserver.url_for("/grobid")
    actor = Actor.importer("test")
    ingestion_request(arxiv_ids=["2401.00003"], actor=actor, reason="test")

    httpserver.expect_oneshot_request("/grobid/api/processReferences").respond_with_data("busy", status=503)
    with pytest.raises(grobid.GrobidBusy):
        paper_ingest(arxiv_id="2401.00003", actor=actor, reason="test")

    httpserver.expect_oneshot_request("/grobid/api/processReferences").respond_with_data("bad pdf", status=500)
    outcome = paper_ingest(arxiv_id="2401.00003", actor=actor, reason="test")
    assert outcome.state == IngestionState.FAILED and "GROBID" in outcome.error
    assert not Observation.objects.exists()


def test_an_eprint_that_breaks_the_code_fails_alone_and_says_why(bundle: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import curation.ingestion.services.papers as papers  # where bundles read a source too

    real = papers.bibliography_from_eprint

    def broken(data: bytes, *, name: str, limits):  # type: ignore[no-untyped-def]
        if "2401.00002" in name:
            raise RuntimeError("a bug met on this paper")
        return real(data, name=name, limits=limits)

    monkeypatch.setattr(papers, "bibliography_from_eprint", broken)
    ingest(bundle)
    failed = PaperIngestion.objects.get(paper__arxiv_id="2401.00002")
    assert failed.state == IngestionState.FAILED and "RuntimeError: a bug met on this paper" in failed.error
    assert not Observation.objects.filter(paper__arxiv_id="2401.00002").exists()
    assert states()["2401.00001"] == "done"
    assert SourceBundle.objects.get().failed == 3


@pytest.mark.django_db(transaction=True)
def test_a_chunk_held_by_one_worker_never_makes_another_drop_its_own(bundle: Path) -> None:
    from django.db import connections

    from curation.ingestion.services import bundle_chunk_ingest, bundle_register

    _, pending = bundle_register(path=bundle, chunk_size=2)
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute("SELECT id FROM ingestion_sourcebundlechunk WHERE id = %s FOR UPDATE", [pending[0]])
            # What a worker on chunk 0 also holds on the bundle row (its chunk's foreign key):
            # a chunk job that locked the bundle row as well would find it taken and drop its chunk.
            cursor.execute("SELECT id FROM ingestion_sourcebundle FOR KEY SHARE")
            held = bundle_chunk_ingest(chunk_id=pending[0], actor=Actor.importer("test"), reason="test")
            free = bundle_chunk_ingest(chunk_id=pending[1], actor=Actor.importer("test"), reason="test")
            cursor.execute("ROLLBACK")
    finally:
        other.close()
    assert held.skipped and not free.skipped
    assert free.done + free.failed == 2


def test_a_paper_read_from_a_bundle_and_asked_for_again_offline_stays_done(bundle: Path, settings) -> None:  # type: ignore[no-untyped-def]
    """Issue 41 item 4: Add papers on a bundle's paper, with arXiv out of reach, keeps its reading."""
    ingest(bundle)
    before = Observation.objects.filter(paper__arxiv_id="2401.00001").count()
    settings.CITEREC_OFFLINE = True
    out = add_papers("2401.00001")
    ingestion = PaperIngestion.objects.get(paper__arxiv_id="2401.00001")
    assert ingestion.state == IngestionState.DONE and ingestion.error == "", out
    assert Observation.objects.filter(paper__arxiv_id="2401.00001").count() == before == 19
    # A paper whose reading failed is still failed when asked for again offline.
    add_papers("2401.00004")
    assert PaperIngestion.objects.get(paper__arxiv_id="2401.00004").state == IngestionState.FAILED
