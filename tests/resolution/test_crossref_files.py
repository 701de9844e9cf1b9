"""Crossref works as Crossref's public data file comes: folders and tars of gzip'd {"items"} files.

Files are parsed by worker processes (two here, as on the 2-core machine); each file has its
own checkpoint, so an import stopped mid-folder or mid-file resumes where it stopped, and a bad
item or an unreadable file costs itself only.
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from curation.resolution.crossref_decode import decode_items
from curation.resolution.models import CrossrefWork, ImportCheckpoint
from curation.resolution.services import catalogue_imports
from curation.resolution.services.catalogue_imports import store_crossref_works

pytestmark = pytest.mark.django_db


def work(n: int, **fields: Any) -> dict[str, Any]:
    return {"DOI": f"10.1000/f{n}", "title": [f"Folder work {n}"]} | fields


def items_file(path: Path, works: list[dict[str, Any]]) -> Path:
    path.write_bytes(gzip.compress(json.dumps({"items": works}).encode()))
    return path


def lines_file(path: Path, lines: list[str]) -> Path:
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return path


def run(path: Path, *options: str) -> tuple[str, str, CommandError | None]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_crossref_works", str(path), "--no-requeue", "--processes", "2",
                     *options, stdout=out, stderr=err, verbosity=0)  # fmt: skip
    except CommandError as exc:
        return out.getvalue(), err.getvalue(), exc
    return out.getvalue(), err.getvalue(), None


def skipped(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("skipped ")]


def dois() -> list[str]:
    return sorted(CrossrefWork.objects.values_list("doi", flat=True))


def folder_of_three(tmp_path: Path) -> Path:
    """Three files as the public data file has them, plus one of JSON lines; 10 works each."""
    folder = tmp_path / "crossref"
    folder.mkdir()
    for number in range(3):
        items_file(folder / f"{number}.json.gz", [work(number * 10 + i) for i in range(10)])
    lines_file(folder / "3.jsonl.gz", [json.dumps(work(30 + i)) for i in range(10)])
    (folder / "README.txt").write_text("not a works file: not read")
    return folder


def test_a_folder_of_items_files_is_imported_by_worker_processes(tmp_path: Path) -> None:
    folder = folder_of_three(tmp_path)

    out, err, error = run(folder)

    assert error is None, err
    assert dois() == sorted(f"10.1000/f{n}" for n in range(40))
    assert f"{folder}: 40 works added, 0 updated, 0 bad lines skipped" in out


def test_a_tar_of_items_files_is_imported_and_bad_items_named_by_member(tmp_path: Path) -> None:
    folder = folder_of_three(tmp_path)
    items_file(folder / "1.json.gz", [work(10), work(11, DOI=5), work(12)])
    tar = tmp_path / "crossref.tar"
    with tarfile.open(tar, "w") as archive:
        archive.add(folder, arcname="April 2025 Public Data File")

    out, err, error = run(tar)

    assert error is None, err
    assert skipped(err) == [
        f"skipped {tar}:April 2025 Public Data File/1.json.gz: items[1]: "
        "field 'DOI': expected a DOI string starting with '10.'"
    ]
    assert len(dois()) == 32
    assert f"{tar}: 32 works added, 0 updated, 1 bad lines skipped" in out


def test_a_bad_line_in_one_file_of_several_is_skipped_with_its_file_and_line(
    tmp_path: Path,
) -> None:
    folder = folder_of_three(tmp_path)
    bad = lines_file(folder / "3.jsonl.gz", [
        json.dumps(work(30)), "{not json", json.dumps(work(32, issued={"date-parts": [[99999]]}))
    ])  # fmt: skip

    out, err, error = run(folder)

    assert error is None, err
    assert skipped(err) == [
        f"skipped {bad}:2: not JSON: unexpected character: line 1 column 2 (char 1)",
        f"skipped {bad}:3: field 'issued.date-parts': year 99999 is outside 1000-9999",
    ]
    assert len(dois()) == 31
    assert f"{folder}: 31 works added, 0 updated, 2 bad lines skipped" in out


def test_a_truncated_gzip_in_one_file_costs_that_file_and_fails_the_import_at_its_end(
    tmp_path: Path,
) -> None:
    folder = folder_of_three(tmp_path)
    broken = folder / "1.json.gz"
    data = broken.read_bytes()
    broken.write_bytes(data[: len(data) // 2])

    _, err, error = run(folder)

    assert error is not None
    assert str(error).startswith(f"{broken}: line 1: the compressed data ends early")
    assert sorted(dois()) == sorted(f"10.1000/f{n}" for n in (*range(10), *range(20, 40)))
    assert not ImportCheckpoint.objects.get(kind="crossref-set").finished
    # Mended, the file is imported on the next run, and only it: the others were finished.
    items_file(broken, [work(10 + i) for i in range(10)])
    CrossrefWork.objects.filter(doi="10.1000/f0").update(title="Curated meanwhile")
    out, err, error = run(folder)
    assert error is None, err
    assert len(dois()) == 40
    assert CrossrefWork.objects.get(doi="10.1000/f0").title == "Curated meanwhile"
    assert f"{folder}: 10 works added, 0 updated, 0 bad lines skipped" in out


class Stop(Exception):
    """Stands for a killed import: raised by the store after some batches."""


def stop_after(monkeypatch: pytest.MonkeyPatch, batches: int) -> None:
    store = catalogue_imports._store_crossref_rows
    calls = {"n": 0}

    def stopping(*args: Any) -> None:
        calls["n"] += 1
        if calls["n"] > batches:
            raise Stop
        store(*args)

    monkeypatch.setattr(catalogue_imports, "_store_crossref_rows", stopping)


def test_an_import_stopped_mid_folder_resumes_after_the_files_it_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = folder_of_three(tmp_path)
    with monkeypatch.context() as patch:
        stop_after(patch, 2)
        with pytest.raises(Stop):
            run(folder)
    assert len(dois()) == 20
    CrossrefWork.objects.filter(doi__in=["10.1000/f0", "10.1000/f15"]).update(title="Kept")

    out, err, error = run(folder)

    assert error is None, err
    assert len(dois()) == 40
    # The two files done before the stop were not read again.
    assert set(CrossrefWork.objects.filter(title="Kept").values_list("doi", flat=True)) == {
        "10.1000/f0", "10.1000/f15"
    }  # fmt: skip
    assert f"{folder}: 20 works added, 0 updated, 0 bad lines skipped" in out
    # Finished as a whole, the folder is imported anew the next time.
    _, _, error = run(folder)
    assert error is None
    assert not CrossrefWork.objects.filter(title="Kept").exists()


# JSON lines are batched by lines read (the bad line 5 is one of the second 3), documents by
# works stored (the second 3 are items 3, 5 and 6): (stored at the stop, resumed after, added).
@pytest.mark.parametrize("shape, stored, resumed, added", [("lines", 5, 6, 4), ("items", 6, 7, 3)])
def test_an_import_stopped_mid_file_resumes_at_the_line_or_item_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str, stored: int, resumed: int,
    added: int,
) -> None:  # fmt: skip
    works = [work(n) for n in range(10)]
    works[4] = work(4, title=7)  # a bad item before the stop is reported once
    if shape == "lines":
        path = lines_file(tmp_path / "works.jsonl.gz", [json.dumps(w) for w in works])
    else:
        path = items_file(tmp_path / "works.json.gz", works)
    with monkeypatch.context() as patch:
        stop_after(patch, 2)
        with pytest.raises(Stop):
            run(path, "--batch-size", "3")
    assert len(dois()) == stored
    CrossrefWork.objects.filter(doi="10.1000/f0").update(title="Kept")

    out, err, error = run(path, "--batch-size", "3")

    assert error is None, err
    assert len(dois()) == 9 and CrossrefWork.objects.filter(title="Kept").exists()
    assert f"resumed after line {resumed}" in out
    assert skipped(err) == []
    assert f"{path}: {added} works added, 0 updated, 0 bad lines skipped" in out


# Works a file may hold beside plain ones: kept as written, whichever parser read them.
ODD_WORKS = [
    work(4, title=["Ünïcödé — “quoted” title"], author=[{"name": "Équipe Œuvre"}]),
    work(5, DOI="10.1000/Back\\slash", title=["A\\b"], page="e-12", volume="07"),
    work(6, **{"updated-by": [{"DOI": "10.1/\u00e9", "note": None, "n": 1.5}]}),
]
# An integer past 64 bits: orjson reads it as a float (so a whole document stores it rounded),
# msgspec exactly, as the ORM stores the Python integer.
BIG_NUMBER = work(8, **{"update-to": [{"DOI": "10.1/x", "big": 12345678901234567890123}]})


@pytest.mark.parametrize(
    ("path", "extra", "options"),
    [
        ("kept fields (msgspec)", [BIG_NUMBER], ()),
        # an author that is not an object: the document is parsed whole, as before
        ("whole document", [work(7, author=[None, {"family": "Kept"}])], ()),
        ("whole document, raw kept", [], ("--keep-raw",)),
    ],
)
def test_the_new_path_stores_what_store_crossref_works_stores(
    tmp_path: Path, path: str, extra: list[dict[str, Any]], options: tuple[str, ...]
) -> None:
    """The COPY rows and the ORM's bulk upsert keep the same columns for the same works."""
    works = [
        work(
            1,
            author=[{"family": "Müller", "given": "J."}, {"name": "CERN Team"}],
            issued={"date-parts": [[2019, 3]]},
            **{"container-title": ["Phys. Rev. D"]},
            volume="99",
            page="054001",
            issue="5",
            type="journal-article",
        ),  # fmt: skip
        work(
            2,
            title=['Tabs\tand\\backslashes "quoted"\n'],
            **{
                "updated-by": [{"DOI": "10.1000/r", "type": "retraction", "note": "a\tb\\c"}],
                "relation": {"has-preprint": [{"id-type": "arxiv", "id": "2101.00001"}]},
            },
        ),  # fmt: skip
        work(3, title=[], **{"article-number": "e12", "short-container-title": ["JHEP"]}),
        *ODD_WORKS,
        *extra,
        work(1, title=["The last of one DOI wins"]),
    ]
    document = json.dumps({"items": works}).encode()
    if "--keep-raw" not in options:  # raw kept, works are always parsed whole
        assert (decode_items(document) is not None) == (path == "kept fields (msgspec)")
    fields = [f.name for f in CrossrefWork._meta.fields if f.name not in ("id", "imported_at")]
    store_crossref_works(works, keep_raw="--keep-raw" in options)
    by_orm = sorted(CrossrefWork.objects.values_list(*fields))
    CrossrefWork.objects.all().delete()

    _, err, error = run(items_file(tmp_path / "w.json.gz", works), *options)

    assert error is None, err
    assert sorted(CrossrefWork.objects.values_list(*fields)) == by_orm


def test_a_work_given_again_unchanged_is_left_as_it_is(tmp_path: Path) -> None:
    """A re-import rewrites only the works whose kept fields changed."""
    first = items_file(tmp_path / "a.json.gz", [work(n) for n in range(5)])
    out, err, error = run(first)
    assert error is None, err
    assert f"{first}: 5 works added, 0 updated" in out
    stored = dict(CrossrefWork.objects.values_list("doi", "imported_at"))

    changed = [work(n) for n in range(5)]
    changed[3]["title"] = ["Folder work 3, corrected"]
    out, err, error = run(items_file(tmp_path / "b.json.gz", changed))

    assert error is None, err
    assert f"{tmp_path / 'b.json.gz'}: 0 works added, 1 updated" in out
    after = dict(CrossrefWork.objects.values_list("doi", "imported_at"))
    assert {doi for doi in after if after[doi] != stored[doi]} == {"10.1000/f3"}
    assert CrossrefWork.objects.get(doi="10.1000/f3").title == "Folder work 3, corrected"
