"""Catalogue imports on hostile files: an oversize, deep or NUL-carrying line is skipped by
number, the others import; a truncated .gz stops in one line naming the file and the line."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.core.management.base import CommandError

from curation.models import Paper
from curation.resolution.models import CrossrefWork
from tests.resolution.snapshot import snapshot_line

pytestmark = pytest.mark.django_db


def run(command: str, path: Path) -> tuple[str, str, CommandError | None]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(command, str(path), "--no-requeue", stdout=out, stderr=err, verbosity=0)
    except CommandError as exc:
        return out.getvalue(), err.getvalue(), exc
    return out.getvalue(), err.getvalue(), None


def paper(n: int, title: str | None = None) -> str:
    return snapshot_line(f"2101.{n:05d}", title or f"Title number {n}", "Ana Moreau", 2021)


def work(n: int, title: str | None = None) -> str:
    return json.dumps({"DOI": f"10.1000/w{n}", "title": [title or f"Work number {n}"]})


def skipped(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("skipped ")]


def test_snapshot_lines_over_the_limits_are_skipped_by_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(django_settings, "CITEREC_MAX_LINE_BYTES", 2000)
    nul_title = json.dumps(json.loads(paper(5)) | {"title": "Nul\u0000 inside"})
    path = tmp_path / "snap.jsonl"
    path.write_text(
        "\n".join(
            [
                paper(1),
                paper(2, "x" * 3000),  # a line over 2,000 bytes: skipped unread
                paper(3, "T" * 1500),  # fits the line, not the 1,000-character title limit
                '{"id": "2101.00004", "x": ' + "[" * 900 + "]" * 900 + "}",
                nul_title,  # an escaped NUL: dropped, the paper imports
                paper(6),
            ]
        )
        + "\n"
    )
    monkeypatch.setattr(django_settings, "CITEREC_MAX_STRING_CHARS", 1000)

    out, err, error = run("import_arxiv_snapshot", path)

    assert error is None
    lines = skipped(err)
    assert len(lines) == 3, err
    assert lines[0].startswith(f"skipped {path}:2: line of ")
    assert "longer than the limit of 2,000 bytes (CITEREC_MAX_LINE_BYTES)" in lines[0]
    assert lines[1] == (
        f"skipped {path}:3: field 'title': 1,500 characters, longer than the limit of "
        "1,000 characters (CITEREC_MAX_STRING_CHARS)"
    )
    assert lines[2].startswith(f"skipped {path}:4: $.x")
    assert lines[2].endswith("nested deeper than the limit of 64 levels (CITEREC_MAX_JSON_DEPTH)")
    assert sorted(Paper.objects.values_list("arxiv_id", flat=True)) == [
        "2101.00001",
        "2101.00005",
        "2101.00006",
    ]
    assert Paper.objects.get(arxiv_id="2101.00005").title == "Nul inside"
    assert "3 papers added" in out


def test_a_line_deeper_than_the_parser_allows_is_skipped_not_a_recursion_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "snap.jsonl"
    path.write_text(paper(1) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n" + paper(2) + "\n")

    _, err, error = run("import_arxiv_snapshot", path)

    assert error is None
    assert skipped(err) == [
        f"skipped {path}:2: nested deeper than the limit of 64 levels (CITEREC_MAX_JSON_DEPTH)"
    ]
    assert Paper.objects.count() == 2


def truncated_gzip(path: Path, lines: list[str]) -> Path:
    data = gzip.compress(("\n".join(lines) + "\n").encode())
    path.write_bytes(data[: len(data) * 2 // 3])
    return path


def test_a_truncated_gzip_snapshot_keeps_the_lines_read_and_fails_in_one_line(
    tmp_path: Path,
) -> None:
    lines = [paper(n, f"Title number {n} " + "padding " * (n % 7)) for n in range(400)]
    path = truncated_gzip(tmp_path / "snap.jsonl.gz", lines)

    out, _, error = run("import_arxiv_snapshot", path)

    assert error is not None
    message = str(error)
    assert "\n" not in message
    reached = int(message.split(": line ")[1].split(":")[0])
    assert message == (
        f"{path}: line {reached}: the compressed data ends early (truncated .gz file?); "
        "the lines before it were read"
    )
    assert 1 < reached < 400
    assert Paper.objects.count() == reached - 1  # every complete line before it, nothing after
    assert f"{reached - 1} papers added" in out


def test_crossref_lines_over_the_limits_are_skipped_and_a_truncated_gzip_fails_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(django_settings, "CITEREC_MAX_LINE_BYTES", 2000)
    path = tmp_path / "works.jsonl"
    path.write_text(
        "\n".join([work(1), work(2, "x" * 3000), "[" * 100_000, work(3, "Nul\u0000 title")]) + "\n"
    )

    _, err, error = run("import_crossref_works", path)

    assert error is None
    lines = skipped(err)
    assert len(lines) == 2, err
    assert lines[0].startswith(f"skipped {path}:2: line of ")
    assert lines[1].startswith(f"skipped {path}:3: ")
    assert sorted(CrossrefWork.objects.values_list("doi", "title")) == [
        ("10.1000/w1", "Work number 1"),
        ("10.1000/w3", "Nul title"),
    ]

    gz = truncated_gzip(tmp_path / "works.jsonl.gz", [work(n) for n in range(100, 900)])
    _, _, error = run("import_crossref_works", gz)
    assert error is not None and f"{gz}: line " in str(error)
    assert "ends early" in str(error) and "\n" not in str(error)


def test_a_crossref_items_document_over_the_size_or_depth_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(django_settings, "CITEREC_MAX_JSON_FILE_BYTES", 5000)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"items": [json.loads(work(n)) for n in range(200)]}))
    deep = tmp_path / "deep.json"
    deep.write_text('{"items": [' + "[" * 1000 + "]" * 1000 + "]}")

    _, _, error = run("import_crossref_works", big)
    assert error is not None
    assert str(error) == (
        f"{big}: a single JSON document larger than the limit of 5,000 bytes "
        "(CITEREC_MAX_JSON_FILE_BYTES); use JSON lines"
    )
    _, _, error = run("import_crossref_works", deep)
    assert error is not None
    assert str(error).startswith(f"{deep}: ")
    assert "nested deeper than the limit of 64 levels" in str(error)
    assert not CrossrefWork.objects.exists()
