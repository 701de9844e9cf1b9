"""import_records: idempotent, and a bad file is refused whole with a named JSON path."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from curation.models import Observation, ObservationEvent, Paper
from tests import records_factory as rf

pytestmark = pytest.mark.django_db


def run_import(*paths: Path) -> tuple[str, str, CommandError | None]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_records", *map(str, paths), stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), err.getvalue(), exc
    return out.getvalue(), err.getvalue(), None


def write(tmp_path: Path, name: str, document: Any) -> Path:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def test_reimport_changes_nothing(sample_record_path: Path) -> None:
    run_import(sample_record_path)
    events_before = ObservationEvent.objects.count()
    papers_before = list(Paper.objects.values_list("arxiv_id", "title", "snapshot_observed_at"))

    out, _, error = run_import(sample_record_path)

    assert error is None
    assert "created 0, updated 0, unchanged 33, retired 0" in out
    assert ObservationEvent.objects.count() == events_before
    assert (
        list(Paper.objects.values_list("arxiv_id", "title", "snapshot_observed_at"))
        == papers_before
    )


def _sample(sample_record_path: Path) -> dict[str, Any]:
    return json.loads(sample_record_path.read_text())


BAD_FILES = {
    "not_json": (lambda d: '{"schema": "pith.paper-citation-record.v1", ', "$", "not JSON"),
    "wrong_schema": (lambda d: {**d, "schema": "pith.paper-citation-record.v2"}, "$.schema", "v1"),
    "missing_field": (
        lambda d: rf.reseal({k: v for k, v in d.items() if k != "thesis"}),
        "$",
        "'thesis' is a required property",
    ),
    "wrong_type": (
        lambda d: _set(
            d, lambda x: x["outbound"][4]["citation"].__setitem__("reference_index", "5")
        ),
        "$.outbound[4].citation.reference_index",
        "is not of type 'integer'",
    ),
    "tampered_observation": (
        lambda d: _tamper(
            d, lambda x: x["outbound"][2]["citation"]["cited_work"].__setitem__("year", 1999)
        ),
        "$.outbound[2].observation_digest",
        "does not match",
    ),
    "tampered_context": (
        lambda d: _tamper(d, lambda x: x.__setitem__("thesis", "edited")),
        "$.context_digest",
        "does not match",
    ),
    "duplicate_ids": (
        lambda d: _set(
            d,
            lambda x: x["outbound"][7].__setitem__(
                "observation_id", x["outbound"][3]["observation_id"]
            ),
        ),
        "$.outbound[7].observation_id",
        "duplicate of $.outbound[3]",
    ),
}


def _set(document: dict[str, Any], edit: Any) -> dict[str, Any]:
    """Edit and reseal, so only the edit itself is wrong."""
    document = copy.deepcopy(document)
    edit(document)
    return rf.reseal(document)


def _tamper(document: dict[str, Any], edit: Any) -> dict[str, Any]:
    """Edit without resealing: the digests no longer match the content."""
    document = copy.deepcopy(document)
    edit(document)
    return document


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_is_rejected_whole_and_others_import(
    case: str, tmp_path: Path, sample_record_path: Path
) -> None:
    make, json_path, message = BAD_FILES[case]
    bad = write(tmp_path, f"a_{case}.json", make(_sample(sample_record_path)))
    good = write(
        tmp_path, "b_good.json", rf.record("2501.00001", [rf.observation("2501.00001", 1)])
    )

    _, err, error = run_import(bad, good)

    assert error is not None, "the command must exit non-zero"
    assert f"rejected {bad}: {json_path}" in err
    assert message in err
    assert not Observation.objects.filter(paper__arxiv_id="2412.14374").exists()
    assert not Paper.objects.filter(arxiv_id="2412.14374").exists()
    assert Observation.objects.filter(paper__arxiv_id="2501.00001").count() == 1


def test_folder_imports_every_record_file(tmp_path: Path) -> None:
    for n in range(3):
        arxiv_id = f"2501.0000{n}"
        write(tmp_path, f"{arxiv_id}.json", rf.record(arxiv_id, [rf.observation(arxiv_id, 1)]))

    _, _, error = run_import(tmp_path)

    assert error is None
    assert Observation.objects.count() == 3


def test_reimport_of_a_shorter_record_retires_missing_observations(tmp_path: Path) -> None:
    items = [rf.observation("2501.00001", i) for i in (1, 2, 3)]
    run_import(write(tmp_path, "v1.json", rf.record("2501.00001", items)))

    out, _, error = run_import(write(tmp_path, "v2.json", rf.record("2501.00001", items[:2])))

    assert error is None and "retired 1" in out
    retired = Observation.objects.get(pk=items[2]["observation_id"])
    assert retired.retired_at is not None


def test_pinned_observation_is_not_overwritten_by_import(tmp_path: Path) -> None:
    item = rf.observation("2501.00001", 1)
    run_import(write(tmp_path, "v1.json", rf.record("2501.00001", [item])))
    from curation.audit import Actor, audited

    with audited(Actor.command("test"), "curator decision"):
        Observation.objects.filter(pk=item["observation_id"]).update(
            pinned=True, work_title="Curated title"
        )
    changed = _set(
        rf.record("2501.00001", [item]),
        lambda d: d["outbound"][0]["citation"]["cited_work"].__setitem__("title", "Import title"),
    )

    _, err, error = run_import(write(tmp_path, "v2.json", changed))

    assert error is None
    assert "pinned" in err
    assert Observation.objects.get(pk=item["observation_id"]).work_title == "Curated title"


def test_observation_id_of_another_paper_is_a_conflict(tmp_path: Path) -> None:
    item = rf.observation("2501.00001", 1)
    run_import(write(tmp_path, "a.json", rf.record("2501.00001", [item])))
    stolen = _set(
        rf.record("2501.00002", [rf.observation("2501.00002", 1)]),
        lambda d: d["outbound"][0].__setitem__("observation_id", item["observation_id"]),
    )

    _, err, error = run_import(write(tmp_path, "b.json", stolen))

    assert error is not None
    assert "already belongs to arXiv:2501.00001" in err
    assert not Paper.objects.filter(arxiv_id="2501.00002").exists()
