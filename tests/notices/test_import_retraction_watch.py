"""import_retraction_watch: idempotent by Record ID, superseding, bad rows, then the records."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from curation.notices.models import RetractionWatchImport, RetractionWatchRecord
from curation.notices.parsers.retraction_watch import COLUMNS

from .conftest import FIXTURES
from .records import import_citing_record, notice_of, record_json

pytestmark = pytest.mark.django_db

SAMPLE_2026 = FIXTURES / "rw_sample_2026_identity_placeholders.csv"
SAMPLE_2023 = FIXTURES / "rw_sample.csv"
MICPRO = "10.1016/j.micpro.2020.103053"


def _import(path: Path, *args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_retraction_watch", str(path), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _csv(tmp_path: Path, *lines: str, name: str = "rw.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(("\n".join([",".join(COLUMNS) + ",", *lines]) + "\n").encode())
    return path


def _row(record_id: int, nature: str, date: str, doi: str = "10.1000/paper.1") -> str:
    cells = dict.fromkeys(COLUMNS, "")
    cells.update(
        {
            "Record ID": str(record_id),
            "RetractionDate": f"{date} 0:00",
            "RetractionDOI": f"10.1000/notice.{record_id}",
            "OriginalPaperDOI": doi,
            "RetractionNature": nature,
            "Reason": "+Concerns/Issues About Data;",
        }
    )
    return ",".join(cells[c] for c in COLUMNS) + ","


def test_both_header_variants_import() -> None:
    out, _ = _import(SAMPLE_2026, "--no-refresh")
    _import(SAMPLE_2023, "--no-refresh")

    assert "7 rows read" in out and "created 7" in out
    assert RetractionWatchRecord.objects.count() == 8
    old = RetractionWatchRecord.objects.get(pk=50438)
    assert old.reasons[0] == "Concerns/Issues About Data"  # the '+' prefix is gone
    unavailable = RetractionWatchRecord.objects.get(pk=70548)
    assert (unavailable.original_doi, unavailable.notice_doi) == (None, None)
    correction = RetractionWatchRecord.objects.get(pk=67291)
    assert (correction.nature, correction.original_pubmed_id) == ("correction", 27013874)
    sici = RetractionWatchRecord.objects.get(pk=40040)
    assert sici.original_doi == sici.notice_doi and "<201::aid-jso8>" in sici.original_doi


def test_reimport_is_idempotent_by_record_id() -> None:
    _import(SAMPLE_2026, "--no-refresh")
    history = RetractionWatchRecord.history.rel.related_model.objects.count()

    out, _ = _import(SAMPLE_2026, "--no-refresh")

    assert "created 0, updated 0, unchanged 7" in out
    assert RetractionWatchRecord.objects.count() == 7
    # Seeing a row again is no change: no history rows for last_seen_at alone.
    assert RetractionWatchRecord.history.rel.related_model.objects.count() == history
    assert RetractionWatchImport.objects.count() == 2


def test_expression_of_concern_upgraded_to_retraction_is_superseded() -> None:
    _import(SAMPLE_2026, "--no-refresh")

    concern = RetractionWatchRecord.objects.get(pk=72867)
    retraction = RetractionWatchRecord.objects.get(pk=72853)
    assert (concern.nature, concern.superseded) == ("expression_of_concern", True)
    assert (retraction.nature, retraction.superseded) == ("retraction", False)


def test_a_later_file_supersedes_rows_already_stored(tmp_path: Path) -> None:
    _import(_csv(tmp_path, _row(1, "Retraction", "1/5/2020"), name="a.csv"), "--no-refresh")

    out, _ = _import(
        _csv(tmp_path, _row(2, "Reinstatement", "3/9/2022"), name="b.csv"), "--no-refresh"
    )

    assert "created 1" in out
    assert RetractionWatchRecord.objects.get(pk=1).superseded is True
    assert RetractionWatchRecord.objects.get(pk=2).superseded is False


def test_a_correction_after_a_retraction_supersedes_nothing(tmp_path: Path) -> None:
    path = _csv(tmp_path, _row(1, "Retraction", "1/5/2020"), _row(2, "Correction", "3/9/2022"))

    _import(path, "--no-refresh")

    assert not RetractionWatchRecord.objects.filter(superseded=True).exists()


def test_a_changed_row_is_updated(tmp_path: Path) -> None:
    _import(_csv(tmp_path, _row(1, "Expression of concern", "1/5/2020")), "--no-refresh")

    out, _ = _import(_csv(tmp_path, _row(1, "Retraction", "1/5/2020")), "--no-refresh")

    assert "updated 1" in out
    assert RetractionWatchRecord.objects.get(pk=1).nature == "retraction"


def test_bad_rows_are_reported_by_line_and_the_rest_imports(tmp_path: Path) -> None:
    path = _csv(
        tmp_path,
        _row(1, "Retraction", "1/5/2020"),
        _row(2, "Retraction", "13/45/2020"),
        "oops,too,few",
        _row(3, "Correction", "2/2/2021", doi="unavailable"),
        "," * len(COLUMNS),
        "," * len(COLUMNS),
    )
    path.write_bytes(path.read_bytes().replace(b"10.1000/notice.3", b"10.1000/notic\xe9.3"))

    out, err = _import(path, "--no-refresh")

    assert "line 3: RetractionDate" in err
    assert "line 4: (row)" in err
    assert "created 2" in out and "rejected 2" in out
    assert set(RetractionWatchRecord.objects.values_list("pk", flat=True)) == {1, 3}
    assert RetractionWatchImport.objects.get().error_count == 2


def test_a_file_that_is_not_retraction_watch_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.csv"
    path.write_text("id,title\n1,x\n")

    with pytest.raises(CommandError, match="not a Retraction Watch CSV header"):
        _import(path)
    assert not RetractionWatchRecord.objects.exists()


def test_import_brings_the_rows_to_the_records_of_cited_works() -> None:
    import_citing_record(dois=[MICPRO.upper(), "10.1000/not-in-rw"])

    out, _ = _import(SAMPLE_2026)

    assert "notices recomputed for 1 cited work" in out
    record = record_json()
    notice = notice_of(record, doi=MICPRO.upper())
    assert [(e["type"], e["source_record_id"]) for e in notice["events"]] == [
        ("expression_of_concern", "72867"),
        ("retraction", "72853"),
    ]
    assert notice["events"][1]["reasons"][0] == "Author Unresponsive"
    assert [r["source"] for r in notice["source_receipts"]] == ["retraction_watch"]
    # The other work was not touched by the import: its imported notice stands.
    assert notice_of(record, doi="10.1000/not-in-rw")["source_receipts"][0]["source"] == "crossref"
