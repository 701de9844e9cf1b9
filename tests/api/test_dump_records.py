"""dump_records: every record as gzip JSON lines, valid against the v1 schema, resumable."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from django.core.management import call_command

from curation.record.canonical import canonical_json
from curation.record.schema import RECORD_SCHEMA
from tests import records_factory as rf
from tests.api.conftest import store

pytestmark = pytest.mark.django_db


def _read(directory: Path) -> list[dict[str, Any]]:
    records = []
    for shard in sorted(directory.glob("records-*.jsonl.gz")):
        for line in gzip.decompress(shard.read_bytes()).splitlines():
            record = json.loads(line)
            assert canonical_json(record) == line
            records.append(record)
    return records


def _dump(directory: Path, *args: str) -> None:
    call_command("dump_records", str(directory), "--no-progress", *args, stdout=io.StringIO())


def test_dump_writes_every_record_and_each_validates(
    tmp_path: Path, sample: dict[str, Any]
) -> None:
    store(rf.record("hep-th/9711200", [rf.observation("hep-th/9711200", 1)]))

    _dump(tmp_path, "--shard-size", "1")

    records = _read(tmp_path)
    assert [r["paper"]["arxiv_id"] for r in records] == ["2412.14374", "hep-th/9711200"]
    assert records[0]["outbound"] == sample["outbound"]
    for record in records:
        jsonschema.validate(record, RECORD_SCHEMA)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert [s["count"] for s in manifest["shards"]] == [1, 1]


def test_a_rerun_resumes_after_the_last_complete_shard(
    tmp_path: Path, sample: dict[str, Any]
) -> None:
    _dump(tmp_path)
    first = (tmp_path / "records-00000.jsonl.gz").read_bytes()
    store(rf.record("2999.00001", [rf.observation("2999.00001", 1)]))

    _dump(tmp_path)

    assert (tmp_path / "records-00000.jsonl.gz").read_bytes() == first
    assert [r["paper"]["arxiv_id"] for r in _read(tmp_path)] == ["2412.14374", "2999.00001"]
