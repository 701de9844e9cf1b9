"""Catalogue imports: arXiv snapshot (COPY + upsert, resumable) and Crossref works."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from curation.audit import Actor
from curation.models import Paper, PaperEvent
from curation.resolution.models import CrossrefWork, ImportCheckpoint
from curation.resolution.services.catalogue_imports import import_arxiv_snapshot
from tests.resolution.snapshot import snapshot_line

pytestmark = pytest.mark.django_db
ACTOR = Actor.importer("test")


def write_snapshot(path: Path, lines: list[str]) -> Path:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt") as out:
        out.write("\n".join(lines) + "\n")
    return path


def test_snapshot_import_reads_gzip_and_skips_bad_lines_by_number(tmp_path: Path) -> None:
    path = write_snapshot(tmp_path / "snap.jsonl.gz", [
        snapshot_line("2101.00001", "Deep  Sets\n Revisited", "Ana Moreau, Ben Novak", 2021,
                      2022, doi="10.1/ABC", journal_ref="J. Foo 12 (2023) 1"),
        "{not json",
        json.dumps({"id": "2101.00002"}),
        snapshot_line("2101.00003", "Graph Kernels", "Chen Tanaka", 2021),
    ])  # fmt: skip
    out, err = io.StringIO(), io.StringIO()
    call_command("import_arxiv_snapshot", str(path), "--no-requeue", stdout=out, stderr=err,
                 verbosity=0)  # fmt: skip
    paper = Paper.objects.get(arxiv_id="2101.00001")
    assert paper.title == "Deep Sets Revisited"
    assert (paper.first_author, paper.year, paper.doi) == ("moreau", 2021, "10.1/abc")
    assert paper.title_norm == "deep sets revisited" and paper.in_catalogue
    assert paper.latest_version == 2 and paper.last_updated.year == 2022
    assert Paper.objects.filter(in_catalogue=True).count() == 2
    assert "snap.jsonl.gz:2: " in err.getvalue()
    assert "snap.jsonl.gz:3: field 'title'" in err.getvalue()
    assert "2 papers added" in out.getvalue() and "2 bad lines skipped" in out.getvalue()


def test_snapshot_import_is_idempotent_and_records_only_real_updates(tmp_path: Path) -> None:
    lines = [snapshot_line(f"2101.{i:05d}", f"Title number {i}", "Ana Moreau", 2021)
             for i in range(10)]  # fmt: skip
    path = write_snapshot(tmp_path / "a.jsonl", lines)
    first = import_arxiv_snapshot(path=path, actor=ACTOR, reason="first", batch_size=3)
    again = import_arxiv_snapshot(path=path, actor=ACTOR, reason="again", batch_size=3,
                                  restart=True)  # fmt: skip
    assert (first.inserted, first.updated) == (10, 0)
    assert (again.inserted, again.updated) == (0, 0)
    assert PaperEvent.objects.count() == 0  # inserts are reference data, not history
    lines[4] = snapshot_line("2101.00004", "A corrected title", "Ana Moreau", 2021)
    changed = write_snapshot(tmp_path / "b.jsonl", lines)
    report = import_arxiv_snapshot(path=changed, actor=ACTOR, reason="fix", batch_size=3)
    assert (report.inserted, report.updated) == (0, 1)
    event = PaperEvent.objects.get()
    assert event.title == "A corrected title"
    assert event.pgh_context.metadata["reason"] == "fix"


def test_snapshot_import_resumes_after_the_last_finished_batch(tmp_path: Path) -> None:
    lines = [snapshot_line(f"2101.{i:05d}", f"Title number {i}", "Ana Moreau", 2021)
             for i in range(10)]  # fmt: skip
    path = write_snapshot(tmp_path / "a.jsonl", lines)

    class Stop(Exception):
        pass

    calls = []

    def progress(n: int) -> None:
        calls.append(n)
        if len(calls) == 2:
            raise Stop  # the import is killed after its second batch committed

    with pytest.raises(Stop):
        import_arxiv_snapshot(path=path, actor=ACTOR, reason="r", batch_size=4, progress=progress)
    checkpoint = ImportCheckpoint.objects.get()
    assert checkpoint.line == 8 and not checkpoint.finished
    report = import_arxiv_snapshot(path=path, actor=ACTOR, reason="r", batch_size=4)
    assert report.resumed_at == 8 and report.read == 2 and report.inserted == 2
    assert Paper.objects.count() == 10
    assert ImportCheckpoint.objects.get().finished


WORK = {
    "DOI": "10.1000/XYZ.1", "title": ["A Journal Paper"], "type": "journal-article",
    "container-title": ["J. Tests"], "author": [{"given": "Ana", "family": "Müller"}],
    "issued": {"date-parts": [[2019, 4]]},
    "updated-by": [{"DOI": "10.1000/retraction", "type": "retraction", "updated": {}}],
}  # fmt: skip


@pytest.mark.parametrize("shape", ["lines", "items", "message"])
def test_crossref_import_accepts_lines_and_item_files(tmp_path: Path, shape: str) -> None:
    path = tmp_path / "works.json"
    if shape == "lines":
        path.write_text(json.dumps(WORK) + "\n" + json.dumps({"title": ["no doi"]}) + "\n")
    elif shape == "items":
        path.write_text(json.dumps({"items": [WORK]}))
    else:
        path.write_text(json.dumps({"status": "ok", "message": {"items": [WORK]}}))
    err = io.StringIO()
    call_command("import_crossref_works", str(path), "--no-requeue", stdout=io.StringIO(),
                 stderr=err, verbosity=0)  # fmt: skip
    work = CrossrefWork.objects.get()
    assert (work.doi, work.year, work.first_author) == ("10.1000/xyz.1", 2019, "muller")
    assert work.updated_by[0]["type"] == "retraction"
    if shape == "lines":
        assert "works.json:2: field 'DOI'" in err.getvalue()
