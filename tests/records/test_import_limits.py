"""import_records on hostile files: each is refused in one line naming the file, the JSON path
and the limit, nothing of it is stored, and the files after it in a folder still import."""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.core.management.base import CommandError

from curation.limits import Limits, current_limits
from curation.models import Observation, Paper
from curation.record.input_checks import RecordInputError, load_record
from tests import records_factory as rf

pytestmark = pytest.mark.django_db

BAD_ID, GOOD_ID = "2501.00001", "2501.00002"


def run_import(*paths: Path) -> tuple[str, CommandError | None]:
    err = io.StringIO()
    try:
        call_command("import_records", *map(str, paths), stdout=io.StringIO(), stderr=err)
    except CommandError as exc:
        return err.getvalue(), exc
    return err.getvalue(), None


def good_record(arxiv_id: str = GOOD_ID) -> dict[str, Any]:
    return rf.record(arxiv_id, [rf.observation(arxiv_id, 1), rf.observation(arxiv_id, 2)])


def edited(edit: Callable[[dict[str, Any]], None], reseal: bool = True) -> dict[str, Any]:
    """Return a valid record of BAD_ID with one edit, resealed so only the edit is wrong."""
    document = copy.deepcopy(good_record(BAD_ID))
    edit(document)
    # A lone surrogate cannot be digested at all; the check refuses it before digests anyway.
    return rf.reseal(document) if reseal else document


def assert_refused_alone(folder: Path, bad: Path, where: str, *words: str) -> None:
    """Import the folder: the bad file is refused in one line, the good one after it imports."""
    (folder / "b_good.json").write_text(json.dumps(good_record()))

    err, error = run_import(folder)

    assert error is not None
    lines = [line for line in err.splitlines() if line.startswith("rejected")]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"rejected {bad}: {where}"), lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    assert not Paper.objects.filter(arxiv_id=BAD_ID).exists()
    assert Observation.objects.filter(paper__arxiv_id=GOOD_ID).count() == 2


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(django_settings, "CITEREC_MAX_JSON_FILE_BYTES", 200_000)
    bad = tmp_path / "a_big.json"
    bad.write_text(json.dumps(edited(lambda d: d["paper"].__setitem__("title", "x" * 200_001))))

    assert_refused_alone(
        tmp_path, bad, "$", "larger than the limit of 200,000 bytes", "CITEREC_MAX_JSON_FILE_BYTES"
    )


def test_a_title_just_over_the_string_limit_is_refused(tmp_path: Path) -> None:
    limit = Limits().string_chars
    bad = tmp_path / "a_title.json"
    bad.write_text(json.dumps(edited(lambda d: d["paper"].__setitem__("title", "T" * (limit + 1)))))

    assert_refused_alone(
        tmp_path,
        bad,
        "$.paper.title",
        f"{limit + 1:,} characters",
        f"limit of {limit:,} characters",
        "CITEREC_MAX_STRING_CHARS",
    )


def test_a_title_at_the_limit_imports(tmp_path: Path) -> None:
    limit = Limits().string_chars
    path = tmp_path / "title.json"
    path.write_text(json.dumps(edited(lambda d: d["paper"].__setitem__("title", "T" * limit))))

    _, error = run_import(path)

    assert error is None
    assert len(Paper.objects.get(arxiv_id=BAD_ID).title) == limit


def test_100k_deep_nesting_is_refused_and_the_next_file_imports(tmp_path: Path) -> None:
    bad = tmp_path / "a_deep.json"
    bad.write_text(
        '{"schema": "pith.paper-citation-record.v1", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )

    assert_refused_alone(
        tmp_path,
        bad,
        "line 1 column",
        "nested deeper than the limit of 64 levels",
        "CITEREC_MAX_JSON_DEPTH",
    )


def test_nesting_past_the_limit_but_parseable_names_the_json_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(django_settings, "CITEREC_MAX_JSON_DEPTH", 8)
    deep: Any = "leaf"
    for _ in range(10):
        deep = [deep]
    bad = tmp_path / "a_deep.json"
    bad.write_text(json.dumps({**good_record(BAD_ID), "refusal": deep}))

    assert_refused_alone(tmp_path, bad, "$.refusal[0]", "limit of 8 levels")


@pytest.mark.parametrize(
    ("text", "what"), [("a\u0000b", "NUL character"), ("a\ud800b", "lone UTF-16 surrogate")]
)
def test_unstorable_characters_are_refused_with_their_path(
    tmp_path: Path, text: str, what: str
) -> None:
    bad = tmp_path / "a_nul.json"
    document = edited(
        lambda d: d["outbound"][1]["citation"]["cited_work"].__setitem__("venue", text),
        reseal="\ud800" not in text,
    )
    bad.write_text(json.dumps(document))  # ensure_ascii: "\u0000" and "\ud800" escapes

    assert_refused_alone(tmp_path, bad, "$.outbound[1].citation.cited_work.venue", what)


@pytest.mark.parametrize(
    ("edit", "where", "words"),
    [
        (
            lambda d: d["outbound"][0]["citation"]["cited_work"].__setitem__(
                "doi", "10.1/" + "x" * 300
            ),
            "$.outbound[0].citation.cited_work.doi",
            ("305 characters", "255"),
        ),
        (
            lambda d: d["outbound"][0]["citation"].__setitem__("reference_index", 2**40),
            "$.outbound[0].citation.reference_index",
            ("outside the stored range",),
        ),
        (
            lambda d: d["paper"].__setitem__("latest_version", 70_000),
            "$.paper.latest_version",
            ("outside the stored range",),
        ),
    ],
)
def test_values_their_column_cannot_hold_are_refused(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None], where: str, words: tuple[str, ...]
) -> None:
    bad = tmp_path / "a_column.json"
    bad.write_text(json.dumps(edited(edit)))

    assert_refused_alone(tmp_path, bad, where, *words)


def test_limits_come_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(django_settings, "CITEREC_MAX_STRING_CHARS", 123)
    assert current_limits().string_chars == 123
    monkeypatch.setattr(django_settings, "CITEREC_MAX_STRING_CHARS", 0)
    with pytest.raises(ValueError, match="CITEREC_MAX_STRING_CHARS"):
        current_limits()


def test_the_settings_read_each_limit_from_the_environment() -> None:
    """Settings read CITEREC_MAX_<NAME> for every limit (a limit left out would fail here)."""
    values = {Limits.setting(spec.name): 1000 + n for n, spec in enumerate(fields(Limits))}
    script = (
        "import django; django.setup(); from curation.limits import current_limits; "
        "print(current_limits())"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    env.update({name: str(value) for name, value in values.items()})
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    expected = Limits(**{spec.name: 1000 + n for n, spec in enumerate(fields(Limits))})
    assert result.stdout.strip() == repr(expected)


def test_a_file_that_grows_after_its_size_was_checked_is_still_not_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing.json"
    path.write_text("[" + "1," * 20 + "1]")
    small = os.stat_result((0o100644, 0, 0, 1, 0, 0, 2, 0, 0, 0))  # as stat saw it: 2 bytes
    monkeypatch.setattr(Path, "stat", lambda self, **kwargs: small)

    with pytest.raises(RecordInputError, match="larger than the limit of 10 bytes"):
        load_record(path, Limits(json_file_bytes=10))
