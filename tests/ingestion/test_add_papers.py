"""One paper end to end: add_papers fetches metadata and e-print from (a fake) arXiv, reads the
bibliography, creates the observations in bibliography order, resolves them, serves the record."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from datetime import UTC, datetime
from typing import Any

import pytest
from django.core.management.base import CommandError

from curation.audit import Actor
from curation.ingestion.models import IngestionState, PaperIngestion
from curation.ingestion.services import ARXIV_SOURCE
from curation.models import Observation, Paper
from curation.references import parse_reference
from curation.references.latex_source import bibliography_from_eprint
from curation.services.observations import observation_set_state
from curation.states import ResolutionStatus
from tests.clients.arxiv.fake_arxiv import MINIMAL_PDF
from tests.ingestion.conftest import add_papers, dev_source

pytestmark = pytest.mark.django_db

PAPER = "2401.00001"
CURATOR = Actor.command("test-curator")


def keys_of(path: Any) -> list[str | None]:
    return [e.key for e in bibliography_from_eprint(path.read_bytes(), name="dev").entries]


def live(arxiv_id: str = PAPER) -> list[Observation]:
    return list(
        Observation.objects.filter(paper__arxiv_id=arxiv_id, retired_at__isnull=True)
        .select_related("resolution")
        .order_by("reference_index")
    )


def ingestion(arxiv_id: str = PAPER) -> PaperIngestion:
    return PaperIngestion.objects.select_related("paper").get(paper__arxiv_id=arxiv_id)


def test_add_papers_builds_the_record_from_the_source(fake_arxiv, client) -> None:  # type: ignore[no-untyped-def]
    source = dev_source("Eyewall__2018jas")
    fake_arxiv.add_record(PAPER, title="Eyewall replacement in tropical cyclones", versions=2)
    fake_arxiv.add_eprint(PAPER, source, version=2)

    out = add_papers(PAPER)

    done = ingestion()
    assert (done.state, done.error, done.version, done.method) == (IngestionState.DONE, "", 2, "bbl-bibitem")
    assert done.reference_count == 19 and f"arXiv:{PAPER}" in out
    paper = Paper.objects.get(arxiv_id=PAPER)
    assert paper.title == "Eyewall replacement in tropical cyclones" and paper.latest_version == 2
    observations = live()
    assert [o.reference_index for o in observations] == list(range(1, 20))
    assert {o.source for o in observations} == {ARXIV_SOURCE}
    assert all(hasattr(o, "resolution") for o in observations)  # every reference has a verdict
    entries = bibliography_from_eprint(source.read_bytes(), name="dev").entries
    assert [o.raw_text for o in observations] == [" ".join(e.raw.split()) for e in entries]
    # The record is served, in bibliography order, with source arxiv_source.
    record = json.loads(client.get(f"/paper/{PAPER}/citation-record.json").content)
    assert record["reference_resolution"]["total_outbound_references"] == 19
    assert [o["citation"]["source"] for o in record["outbound"]] == [ARXIV_SOURCE] * 19
    assert record["paper"]["title"] == "Eyewall replacement in tropical cyclones"
    assert fake_arxiv.count("eprint") == 1


def test_asking_again_for_the_same_version_fetches_nothing_and_changes_nothing(fake_arxiv) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record(PAPER, title="A paper")
    fake_arxiv.add_eprint(PAPER, dev_source("Eyewall__2018jas"))
    add_papers(PAPER)
    before = {o.pk: o.revision for o in live()}

    add_papers(PAPER)
    assert fake_arxiv.count("eprint") == 1
    assert {o.pk: o.revision for o in live()} == before
    assert ingestion().state == IngestionState.DONE

    # Forced, the source is read again from the store: still no new e-print request.
    add_papers(PAPER, force=True)
    assert fake_arxiv.count("eprint") == 1
    assert {o.pk: o.revision for o in live()} == before


def _bbl_tar(items: list[tuple[str, str]]) -> bytes:
    """Return a tar.gz e-print: a main .tex and its .bbl with these (key, text) items."""
    tex = b"\\documentclass{article}\\begin{document}Text \\cite{" + ",".join(k for k, _ in items).encode() + b"}\n\\bibliography{refs}\\end{document}\n"
    bbl = "\\begin{thebibliography}{9}\n" + "".join(f"\\bibitem{{{k}}} {t}\n\n" for k, t in items) + "\\end{thebibliography}\n"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in (("ms.tex", tex), ("ms.bbl", bbl.encode())):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


GPIPE = ("huang", "Huang, Y. et al. GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism. NeurIPS 2019.")
ZERO = ("rajb", "Rajbhandari, S. et al. ZeRO: Memory Optimizations Toward Training Trillion Parameter Models. SC 2020.")
ALPA = ("zheng", "Zheng, L. et al. Alpa: Automating Inter- and Intra-Operator Parallelism for Distributed Deep Learning. OSDI 2022.")
JUNK = ("junk", "write newline")


def test_a_new_version_is_read_again_keeping_identity_and_curator_decisions(fake_arxiv) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record(PAPER, title="A paper", versions=1)
    fake_arxiv.add_eprint(PAPER, _bbl_tar([GPIPE, JUNK, ZERO]), version=1)
    add_papers(PAPER)
    first = {o.raw_text: o for o in live()}
    decided = first[ZERO[1]]
    observation_set_state(observation=decided, status=ResolutionStatus.UNRESOLVED,
                          expected_revision=decided.revision, actor=CURATOR, reason="not in any catalogue")  # fmt: skip

    fake_arxiv.add_record(PAPER, title="A paper", versions=2)
    fake_arxiv.add_eprint(PAPER, _bbl_tar([ALPA, GPIPE, ZERO]), version=2)
    add_papers(PAPER)

    assert ingestion().version == 2
    now = {o.raw_text: o for o in live()}
    assert list(now) == [ALPA[1], GPIPE[1], ZERO[1]]  # the new order
    assert now[GPIPE[1]].pk == first[GPIPE[1]].pk and now[ZERO[1]].pk == decided.pk
    assert now[ZERO[1]].pinned  # the curator's decision stands
    assert Observation.objects.get(pk=first[JUNK[1]].pk).retired_at is not None
    assert fake_arxiv.count("eprint") == 2


@pytest.mark.parametrize("given", ["not an id/../x", "2601.900010", "2413.00001", "../../etc/passwd"])
def test_add_papers_refuses_what_is_not_an_arxiv_id(fake_arxiv, given) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CommandError, match="refused"):
        add_papers(given)
    assert not Paper.objects.exists() and not PaperIngestion.objects.exists()
    assert fake_arxiv.count() == 0


def test_a_refused_id_does_not_stop_the_others(fake_arxiv) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record(PAPER, title="A paper")
    fake_arxiv.add_eprint(PAPER, _bbl_tar([GPIPE]))
    with pytest.raises(CommandError, match="1 of 2 refused"):
        add_papers("not-an-id", PAPER)
    assert ingestion().state == IngestionState.DONE


def test_a_paper_arxiv_does_not_have_fails_saying_so(fake_arxiv, client) -> None:  # type: ignore[no-untyped-def]
    add_papers("2401.99999")
    failed = ingestion("2401.99999")
    assert failed.state == IngestionState.FAILED
    assert "arXiv has no paper 2401.99999" in failed.error
    page = client.get("/paper/2401.99999/citation-record").content.decode()
    assert "arXiv has no paper 2401.99999" in page


def _hostile_tar() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("../../evil.tex")
        data = b"\\documentclass{article}"
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_hostile_archive_is_refused_naming_the_paper_and_nothing_is_written(fake_arxiv) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record(PAPER, title="A paper")
    fake_arxiv.add_eprint(PAPER, _hostile_tar())
    add_papers(PAPER)
    failed = ingestion()
    assert failed.state == IngestionState.FAILED
    assert f"arXiv:{PAPER}" in failed.error
    assert not Observation.objects.exists()


def test_a_gzip_bomb_is_refused_with_the_limit(fake_arxiv) -> None:  # type: ignore[no-untyped-def]
    spaces = gzip.compress(b" " * (1 << 20))
    head = gzip.compress(b"\\documentclass{article}\n")
    fake_arxiv.add_record(PAPER, title="A paper")
    fake_arxiv.add_eprint(PAPER, head + spaces * 400)  # 400 MiB of TeX, 400 KB on the wire
    add_papers(PAPER)
    failed = ingestion()
    assert failed.state == IngestionState.FAILED
    assert "CITEREC_MAX_SOURCE" in failed.error and f"arXiv:{PAPER}" in failed.error


def test_a_pdf_only_paper_waits_for_grobid(fake_arxiv, settings, client) -> None:  # type: ignore[no-untyped-def]
    settings.GROBID_URL = ""
    fake_arxiv.add_record(PAPER, title="A paper")
    fake_arxiv.add_eprint(PAPER, MINIMAL_PDF)
    add_papers(PAPER)
    waiting = ingestion()
    assert (waiting.state, waiting.error) == (IngestionState.PDF_ONLY, "PDF only: no source bibliography")
    assert "PDF only: no source bibliography" in client.get(f"/paper/{PAPER}/citation-record").content.decode()


def test_offline_mode_calls_nothing_and_reads_what_is_stored(fake_arxiv, settings) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record(PAPER, title="A paper")
    fake_arxiv.add_eprint(PAPER, _bbl_tar([GPIPE, ZERO]))
    settings.CITEREC_OFFLINE = True
    add_papers(PAPER)
    assert ingestion().state == IngestionState.FAILED
    assert "offline" in ingestion().error
    assert fake_arxiv.count() == 0

    settings.CITEREC_OFFLINE = False
    add_papers(PAPER, force=True)  # fetched once, into the store
    requests = fake_arxiv.count()
    settings.CITEREC_OFFLINE = True
    add_papers(PAPER, force=True)
    assert fake_arxiv.count() == requests
    assert ingestion().state == IngestionState.DONE and len(live()) == 2


def test_a_paper_citing_x_shows_in_xs_record_as_inbound(fake_arxiv, client) -> None:  # type: ignore[no-untyped-def]
    source = dev_source("nikolaimatni__robust-sls")
    entries = bibliography_from_eprint(source.read_bytes(), name="dev").entries
    cited = next(e for e in entries if e.arxiv_id == "1710.01688")
    title = parse_reference(cited.raw).title
    assert title
    fake_arxiv.add_record("1710.01688", title=title, authors="Sarah Dean, Horia Mania, Nikolai Matni, Benjamin Recht, Stephen Tu",
                          versions=[(datetime(2017, 10, 4, 17, 0, tzinfo=UTC), "900kb")])  # fmt: skip
    fake_arxiv.add_eprint("1710.01688", _bbl_tar([GPIPE]))
    fake_arxiv.add_record(PAPER, title="Robust system level synthesis")
    fake_arxiv.add_eprint(PAPER, source)

    add_papers("1710.01688")
    record = json.loads(client.get("/paper/1710.01688/citation-record.json").content)
    assert record["inbound"] == []
    add_papers(PAPER)

    record = json.loads(client.get("/paper/1710.01688/citation-record.json").content)
    citing = [o["citation"]["citing_paper"]["arxiv_id"] for o in record["inbound"]]
    citation = Observation.objects.get(paper__arxiv_id=PAPER, work_arxiv_id="1710.01688")
    assert citing == [PAPER], repr((citation.raw_text, citation.resolution.status, citation.cited_paper_id, citation.resolution.evidence))[:3000]
    assert record["inbound"][0]["resolution"]["status"].startswith("verified")


def test_in_process_an_arxiv_outage_fails_the_paper_saying_why_instead_of_retrying_at_once(fake_arxiv, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import curation.ingestion.services.papers as papers

    monkeypatch.setattr(papers, "ArxivClient", lambda: fake_arxiv.client(max_retries=1))
    fake_arxiv.add_record(PAPER, title="A paper")
    fake_arxiv.fail_next(503, times=10)
    add_papers(PAPER)
    failed = ingestion()
    assert failed.state == IngestionState.FAILED and "ArxivUnavailable" in failed.error
    assert fake_arxiv.count() == 2  # the client's own retry, then no job retry in process


def test_the_papers_own_list_replaces_an_imported_records_copy_but_keeps_curator_decisions(
    fake_arxiv, client, sample_record_path  # type: ignore[no-untyped-def]
) -> None:
    from django.core.management import call_command

    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    sample = "2412.14374"
    imported = list(Observation.objects.filter(paper__arxiv_id=sample).order_by("reference_index"))
    assert len(imported) == 33
    decided = imported[1]
    observation_set_state(observation=decided, status=ResolutionStatus.UNRESOLVED,
                          expected_revision=decided.revision, actor=CURATOR, reason="checked by hand")  # fmt: skip
    fake_arxiv.add_record(sample, title="The sample paper")
    fake_arxiv.add_eprint(sample, _bbl_tar([GPIPE, ZERO, ALPA]))

    add_papers(sample)

    live_now = live(sample)
    assert len(live_now) == 4  # the three of the source, and the one a curator decided
    assert decided.pk in {o.pk for o in live_now}
    assert Observation.objects.filter(paper__arxiv_id=sample, retired_at__isnull=False).count() == 32
    notes = " ".join(ingestion(sample).warnings)
    assert "32 observations of an imported record retired" in notes and "a curator decided were kept" in notes
    record = json.loads(client.get(f"/paper/{sample}/citation-record.json").content)
    assert record["reference_resolution"]["total_outbound_references"] == 4


def test_an_old_style_id_is_ingested_and_served_with_its_slash(fake_arxiv, client) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record("hep-th/9901001", title="An old paper")
    fake_arxiv.add_eprint("hep-th/9901001", _bbl_tar([GPIPE, ZERO]))
    add_papers("hep-th/9901001")
    assert ingestion("hep-th/9901001").state == IngestionState.DONE
    assert client.get("/api/v1/ingestions/hep-th/9901001").json()["reference_count"] == 2
    record = json.loads(client.get("/paper/hep-th/9901001/citation-record.json").content)
    assert record["reference_resolution"]["total_outbound_references"] == 2


@pytest.mark.django_db(transaction=True)
def test_a_second_job_for_a_paper_being_ingested_waits_its_turn(fake_arxiv) -> None:  # type: ignore[no-untyped-def]
    from django.db import connections

    from curation.ingestion.services import PaperBusy, ingestion_request, paper_ingest

    fake_arxiv.add_record(PAPER, title="A paper")
    fake_arxiv.add_eprint(PAPER, _bbl_tar([GPIPE, ZERO]))
    ingestion_request(arxiv_ids=[PAPER], actor=CURATOR, reason="test")
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:  # another worker holds the paper's ingestion lock
            cursor.execute("SELECT pg_advisory_lock(hashtext(%s))", [f"ingest:{PAPER}"])
            with pytest.raises(PaperBusy, match="being ingested by another job"):
                paper_ingest(arxiv_id=PAPER, actor=CURATOR, reason="test")
            cursor.execute("SELECT pg_advisory_unlock(hashtext(%s))", [f"ingest:{PAPER}"])
    finally:
        other.close()
    assert fake_arxiv.count() == 0 and not Observation.objects.exists()
    assert paper_ingest(arxiv_id=PAPER, actor=CURATOR, reason="test").state == IngestionState.DONE
    assert Observation.objects.count() == 2
