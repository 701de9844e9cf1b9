"""One bad line of a catalogue file is skipped by number with its reason; the others import.

Each bad line below once ended the import with a traceback and rolled back the good lines of
its batch (and, for the snapshot, left the checkpoint before it, so every rerun failed there).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from curation.models import Paper
from curation.resolution import catalogue_rows
from curation.resolution.models import CrossrefWork, ImportCheckpoint
from tests.resolution.snapshot import snapshot_item, snapshot_line

pytestmark = pytest.mark.django_db


def run(command: str, path: Path, *options: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(command, str(path), "--no-requeue", *options, stdout=out, stderr=err,
                 verbosity=0)  # fmt: skip
    return out.getvalue(), err.getvalue()


def skipped(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("skipped ")]


def paper(n: int, **fields: Any) -> str:
    item = snapshot_item(f"2101.{n:05d}", f"Title number {n}", "Ana Moreau", 2021)
    return json.dumps(item | fields)


def work(n: int, **fields: Any) -> dict[str, Any]:
    return {"DOI": f"10.1000/w{n}", "title": [f"Work number {n}"]} | fields


LONE_SURROGATE = '{"id": "2101.00099", "title": "\ud800"}'.encode("utf-8", "surrogatepass")


def test_bad_snapshot_lines_are_skipped_and_the_checkpoint_moves_past_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "snap.jsonl"
    lines = [
        paper(1).encode(),
        paper(2, id="2101." + "9" * 60).encode(),  # 65 characters: the column holds 64
        paper(3).encode(),
        paper(4, versions=[{}] * 32_768).encode(),  # latest_version is a smallint
        paper(5, title=["A title in a list"]).encode(),
        paper(6, authors=5).encode(),
        paper(7, versions=[], update_date="0000-01-01").encode(),
        LONE_SURROGATE,
        paper(9).encode(),
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")

    # Parsed by two worker processes: the messages and the checkpoint are the same.
    out, err = run("import_arxiv_snapshot", path, "--batch-size", "3", "--processes", "2")

    assert skipped(err) == [
        f"skipped {path}:2: field 'id': 65 characters, longer than the 64 an arXiv id is stored in",
        f"skipped {path}:4: field 'versions': 32,768 versions, more than the 32,767 stored",
        f"skipped {path}:5: field 'title': expected a string, found a list",
        f"skipped {path}:6: field 'authors': expected a string, found a number",
        f"skipped {path}:7: field 'update_date': year 0 is outside 1000-9999",
        f"skipped {path}:8: not JSON: str is not valid UTF-8: surrogates not allowed: "
        "line 1 column 1 (char 0)",
    ]
    assert sorted(Paper.objects.values_list("arxiv_id", flat=True)) == [
        "2101.00001", "2101.00003", "2101.00009",
    ]  # fmt: skip
    assert f"{path}: 3 papers added, 0 updated, 6 bad lines skipped" in out
    checkpoint = ImportCheckpoint.objects.get(kind="arxiv")
    assert (checkpoint.line, checkpoint.finished, checkpoint.bad_lines) == (9, True, 6)

    again_out, again_err = run("import_arxiv_snapshot", path, "--batch-size", "3")
    assert len(skipped(again_err)) == 6  # a finished file is read again, to the same end
    assert "0 papers added, 0 updated, 6 bad lines skipped" in again_out


@pytest.mark.parametrize(
    ("check", "bad_fields", "refusal"),
    [
        # refused by the upsert into curation_paper (through Django's cursor)
        (
            "ARXIV_ID_CHARS",
            {"id": "2101." + "7" * 65},
            "value too long for type character varying(64)",
        ),
        # refused by the COPY into the staging table (psycopg's own error)
        (
            "SMALLINT_MAX",
            {"versions": [{}] * 32_768},
            'value "32768" is out of range for type smallint',
        ),
    ],
)
def test_a_line_the_database_refuses_anyway_costs_only_itself(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    check: str,
    bad_fields: dict[str, Any],
    refusal: str,
) -> None:
    """Should a check miss a value the columns cannot hold, the batch is split around it."""
    monkeypatch.setattr(catalogue_rows, check, 10**6)  # the check lets the bad value through
    path = tmp_path / "snap.jsonl"
    path.write_text(
        "\n".join([paper(1), paper(2), paper(3, **bad_fields), paper(4), paper(5)]) + "\n"
    )

    out, err = run("import_arxiv_snapshot", path, "--batch-size", "5")

    assert skipped(err) == [f"skipped {path}:3: the database refused it: {refusal}"]
    assert sorted(Paper.objects.values_list("arxiv_id", flat=True)) == [
        "2101.00001", "2101.00002", "2101.00004", "2101.00005",
    ]  # fmt: skip
    assert f"{path}: 4 papers added, 0 updated, 1 bad lines skipped" in out
    checkpoint = ImportCheckpoint.objects.get(kind="arxiv")
    assert (checkpoint.finished, checkpoint.imported, checkpoint.bad_lines) == (True, 4, 1)


def test_bad_crossref_lines_are_skipped_and_the_good_ones_of_the_batch_stored(
    tmp_path: Path,
) -> None:
    path = tmp_path / "works.jsonl"
    lines = [
        json.dumps(work(1, issued={"date-parts": [[2019, 5]]})).encode(),
        json.dumps(work(2, issued="2020")).encode(),
        json.dumps(work(3, author=5)).encode(),
        json.dumps(work(4, issued={"date-parts": [[99999]]})).encode(),
        json.dumps(work(5)).encode(),
        json.dumps(work(6, title=[7])).encode(),
        b'{"DOI": "10.1000/w7", "title": ["\xed\xa0\x80"]}',  # a UTF-8-encoded lone surrogate
        json.dumps(work(8, author=[{"family": 5}])).encode(),
        json.dumps(work(9, **{"updated-by": "10.1000/x"})).encode(),
        json.dumps(work(10, DOI="10.1000/" + "x" * 250)).encode(),
        json.dumps(work(11)).encode(),
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")

    out, err = run("import_crossref_works", path)

    assert skipped(err) == [
        f"skipped {path}:2: field 'issued': expected an object with 'date-parts', found a string",
        f"skipped {path}:3: field 'author': expected a list of author objects, found a number",
        f"skipped {path}:4: field 'issued.date-parts': year 99999 is outside 1000-9999",
        f"skipped {path}:6: field 'title[0]': expected a string, found a number",
        f"skipped {path}:7: not JSON: str is not valid UTF-8: surrogates not allowed: "
        "line 1 column 1 (char 0)",
        f"skipped {path}:8: field 'author[0].family': expected a string, found a number",
        f"skipped {path}:9: field 'updated-by': expected a list, found a string",
        f"skipped {path}:10: field 'DOI': 258 characters, longer than the 255 a DOI is stored in",
    ]
    assert sorted(CrossrefWork.objects.values_list("doi", "year")) == [
        ("10.1000/w1", 2019), ("10.1000/w11", None), ("10.1000/w5", None),
    ]  # fmt: skip
    assert f"{path}: 3 works added, 0 updated, 8 bad lines skipped" in out


def test_bad_items_of_a_crossref_document_are_skipped_by_index(tmp_path: Path) -> None:
    path = tmp_path / "works.json"
    items = [
        work(1),
        work(2, title=["lone \ud800 surrogate"]),  # json.dumps writes it as "\ud800"
        work(3, author=[{"given": "Ana", "family": "Mo\udc00reau"}]),
        work(4, issued={"date-parts": [[-5]]}),
        work(5),
    ]
    path.write_text(json.dumps({"status": "ok", "message": {"items": items}}))

    out, err = run("import_crossref_works", path)

    assert skipped(err) == [
        f"skipped {path}: message.items[1]: $.title[0]: contains a lone UTF-16 surrogate "
        "at position 5, which cannot be stored",
        f"skipped {path}: message.items[2]: $.author[0].family: contains a lone UTF-16 "
        "surrogate at position 2, which cannot be stored",
        f"skipped {path}: message.items[3]: field 'issued.date-parts': year -5 is outside "
        "1000-9999",
    ]
    assert sorted(CrossrefWork.objects.values_list("doi", flat=True)) == [
        "10.1000/w1", "10.1000/w5",
    ]  # fmt: skip
    assert "2 works added, 0 updated, 3 bad lines skipped" in out


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            {"message": [1], "items": []},
            "$.message: expected an object with an 'items' list, found a list",
        ),
        ({"message": {"items": 5}}, "$.message.items: expected a list of works, found a number"),
        ({"items": {"DOI": "10.1000/w1"}}, "$.items: expected a list of works, found an object"),
    ],
)
def test_a_crossref_document_of_the_wrong_shape_is_refused_whole(
    tmp_path: Path, document: dict[str, Any], message: str
) -> None:
    path = tmp_path / "works.json"
    path.write_text(json.dumps(document))

    with pytest.raises(CommandError) as refused:
        run("import_crossref_works", path)

    assert str(refused.value) == f"{path}: {message}"
    assert not CrossrefWork.objects.exists()


def test_a_crossref_work_the_database_refuses_anyway_costs_only_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catalogue_rows, "DOI_CHARS", 1000)  # let a 300-character DOI through
    path = tmp_path / "works.jsonl"
    lines = [work(1), work(2), work(3, DOI="10.1000/" + "y" * 292), work(4)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")

    out, err = run("import_crossref_works", path)

    assert skipped(err) == [
        f"skipped {path}:3: the database refused it: value too long for type character varying(255)"
    ]
    assert CrossrefWork.objects.count() == 3
    assert "3 works added, 0 updated, 1 bad lines skipped" in out


def test_snapshot_lines_still_import_through_the_checks() -> None:
    """The checks refuse only what they name: a full, ordinary line passes."""
    item = json.loads(snapshot_line("2101.00001", "A title", "Ana Moreau", 2021, 2022,
                                    doi="10.1/x", journal_ref="Phys. Rev. D 65 (2002) 094516"))  # fmt: skip
    row = catalogue_rows.arxiv_row(item)
    assert row[0] == "2101.00001" and row[6] == 2 and row[12] == 2021
