"""import_retraction_watch on hostile files: a row with a NUL, an oversize cell, a hostile DOI
or an id its column cannot hold is reported by line and column and skipped; the rest imports."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command

from curation.notices.models import RetractionWatchRecord
from curation.notices.parsers.retraction_watch import COLUMNS

pytestmark = pytest.mark.django_db


def row(record_id: int, **cells: str) -> str:
    values = dict.fromkeys(COLUMNS, "")
    values.update(
        {
            "Record ID": str(record_id),
            "Title": f"Paper {record_id}",
            "RetractionDate": "8/16/2023 0:00",
            "RetractionDOI": f"10.1000/notice.{record_id}",
            "OriginalPaperDOI": f"10.1000/paper.{record_id}",
            "RetractionNature": "Retraction",
        }
    )
    values.update(cells)
    return ",".join(f'"{values[c]}"' for c in COLUMNS) + ","


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "rw.csv"
    path.write_bytes(("\n".join([",".join(COLUMNS) + ",", *lines]) + "\n").encode())
    return path


def run(path: Path) -> tuple[str, list[str]]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_retraction_watch", str(path), "--no-refresh", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue().splitlines()


def test_a_nul_byte_costs_only_its_row(tmp_path: Path) -> None:
    path = write(tmp_path, row(1), row(2, Title="Broken\x00title"), row(3))

    out, errors = run(path)

    assert errors == [f"{path}: line 3: Title: contains a NUL byte at character 7"]
    assert "created 2" in out and "rejected 1" in out
    assert sorted(RetractionWatchRecord.objects.values_list("pk", flat=True)) == [1, 3]


def test_a_dois_with_markup_is_refused_with_its_row(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        row(1),
        row(2, RetractionDOI='10.9999/x""><script>'),  # a CSV-quoted '10.9999/x"><script>'
        row(3, OriginalPaperDOI="10.1002/1096-9098(200007)74:3%3C201::AID-JSO8%3E3.0.CO;2-5"),
    )

    out, errors = run(path)

    assert errors == [
        f"{path}: line 3: RetractionDOI: '10.9999/x\"><script>' is not a valid DOI "
        "('\"' cannot occur in one)"
    ]
    assert "created 2" in out
    assert not RetractionWatchRecord.objects.filter(notice_doi__contains="<script").exists()
    sici = RetractionWatchRecord.objects.get(pk=3).original_doi
    assert sici == "10.1002/1096-9098(200007)74:3<201::aid-jso8>3.0.co;2-5"  # real SICI DOIs stay


def test_a_cell_over_the_field_limit_is_refused_with_its_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(django_settings, "CITEREC_MAX_CSV_FIELD_CHARS", 1000)
    path = write(tmp_path, row(1, Notes="n" * 1001), row(2, Title="t" * 200_000), row(3))

    out, errors = run(path)

    assert errors == [
        f"{path}: line 2: Notes: 1,001 characters, longer than the limit of 1,000 characters "
        "(CITEREC_MAX_CSV_FIELD_CHARS)",
        # Past the csv module's own limit too: the column and citerec's limit, not the csv's.
        f"{path}: line 3: Title: 200,000 characters, longer than the limit of 1,000 characters "
        "(CITEREC_MAX_CSV_FIELD_CHARS)",
    ]
    assert list(RetractionWatchRecord.objects.values_list("pk", flat=True)) == [3]
    assert "created 1" in out


def test_values_past_their_columns_are_row_errors_not_a_database_error(tmp_path: Path) -> None:
    long_doi = "10.1000/" + "d" * 300
    path = write(tmp_path, row(1), row(99_999_999_999), row(3, OriginalPaperDOI=long_doi))

    out, errors = run(path)

    assert errors == [
        f"{path}: line 3: Record ID: 99999999999 is larger than 2,147,483,647",
        f"{path}: line 4: OriginalPaperDOI: DOI of 308 characters, longer than 255",
    ]
    assert list(RetractionWatchRecord.objects.values_list("pk", flat=True)) == [1]


def test_a_file_over_the_size_limit_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(django_settings, "CITEREC_MAX_CSV_FILE_BYTES", 500)
    path = write(tmp_path, *(row(n) for n in range(1, 20)))

    with pytest.raises(CommandError) as caught:
        run(path)

    size = path.stat().st_size
    assert str(caught.value) == (
        f"{path}: file of {size:,} bytes is larger than the limit of 500 bytes "
        "(CITEREC_MAX_CSV_FILE_BYTES)"
    )
    assert not RetractionWatchRecord.objects.exists()
