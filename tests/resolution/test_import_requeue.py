"""A catalogue import queues the re-resolution of unresolved references only once it has read
its file to the end: a truncated .gz (exit 1) queues nothing, and the run that resumes and
finishes it queues the re-resolution, for the rows of both runs."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from curation.resolution.services import dispatch
from tests.resolution.snapshot import snapshot_line

pytestmark = pytest.mark.django_db

LINES = [snapshot_line(f"2101.{n:05d}", f"Title {n} " + "pad " * (n % 7), "Ana Moreau", 2021)
         for n in range(400)]  # fmt: skip
WORKS = [json.dumps({"DOI": f"10.1000/w{n}", "title": [f"Work {n} " + "pad " * (n % 7)]})
         for n in range(400)]  # fmt: skip


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each re-resolution the import commands queue (by task name), instead of queueing it."""
    calls: list[str] = []
    monkeypatch.setattr(dispatch, "queue_on_commit", lambda task, *args, **kwargs: calls.append(task))
    return calls


def gzip_file(path: Path, lines: list[str], *, truncated: bool) -> Path:
    data = gzip.compress(("\n".join(lines) + "\n").encode())
    path.write_bytes(data[: len(data) * 2 // 3] if truncated else data)
    return path


def run(command: str, path: Path) -> tuple[str, CommandError | None]:
    out = io.StringIO()
    try:
        call_command(command, str(path), stdout=out, stderr=io.StringIO(), verbosity=0)
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


@pytest.mark.parametrize(
    ("command", "lines", "what"),
    [("import_arxiv_snapshot", LINES, "papers"), ("import_crossref_works", WORKS, "works")],
)
def test_a_truncated_file_queues_no_re_resolution_and_says_so(
    tmp_path: Path, queued: list[str], command: str, lines: list[str], what: str
) -> None:
    path = gzip_file(tmp_path / "in.jsonl.gz", lines, truncated=True)

    out, error = run(command, path)

    assert error is not None and "ends early" in str(error)
    assert f" {what} added" in out and f" 0 {what} added" not in out  # rows were kept
    assert queued == []
    assert "not re-queued" in out


def test_the_run_that_finishes_a_truncated_snapshot_queues_the_re_resolution(
    tmp_path: Path, queued: list[str]
) -> None:
    path = gzip_file(tmp_path / "snap.jsonl.gz", LINES, truncated=True)
    run("import_arxiv_snapshot", path)
    gzip_file(path, LINES, truncated=False)  # the whole file, downloaded again

    out, error = run("import_arxiv_snapshot", path)

    assert error is None
    assert queued == ["curation.resolution.tasks.requeue_after_import"]
    assert "re-queued unresolved and malformed references" in out
