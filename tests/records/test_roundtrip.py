"""The sample record survives import and export byte for byte (SPEC §1)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from curation.models import Observation
from curation.record.canonical import canonical_json, context_digest, observation_digest
from curation.states import Origin

pytestmark = pytest.mark.django_db


def export(arxiv_id: str, as_of: str) -> bytes:
    out = io.StringIO()
    # export_record writes bytes to sys.stdout.buffer; capture through a file descriptor-free shim
    from contextlib import redirect_stdout

    class _Buffered(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.buffer = io.BytesIO()

    shim = _Buffered()
    with redirect_stdout(shim):
        call_command("export_record", arxiv_id, "--as-of", as_of, stdout=out)
    return shim.buffer.getvalue()


def test_sample_record_round_trips_byte_identical(sample_record_path: Path) -> None:
    sample = json.loads(sample_record_path.read_text())
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())

    exported = export("2412.14374", "2026-08-20T03:56:00Z")

    assert exported == canonical_json(sample)
    document = json.loads(exported)
    assert document["context_digest"] == sample["context_digest"] == context_digest(document)
    assert [o["observation_digest"] for o in document["outbound"]] == [
        observation_digest(o) for o in sample["outbound"]
    ]


def test_import_stores_imported_judgements_without_resolving(sample_record_path: Path) -> None:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())

    observations = Observation.objects.filter(paper__arxiv_id="2412.14374").select_related(
        "resolution"
    )
    assert observations.count() == 33
    assert {o.resolution.origin for o in observations} == {Origin.IMPORTED}
    # Reference 6 is linked yet says unresolved: stored as the other system judged it.
    ref6 = observations.get(reference_index=6)
    assert ref6.cited_paper is not None and ref6.cited_paper.arxiv_id == "1604.06174"
    assert ref6.resolution.status == "unresolved"


def test_export_as_of_another_minute_changes_only_as_of_and_thesis_date(
    sample_record_path: Path,
) -> None:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())

    later = json.loads(export("2412.14374", "2026-09-01T10:11:59.5+02:00"))

    assert later["as_of"] == "2026-09-01T08:11:00Z"
    assert later["thesis"].startswith(
        "As of 1 September 2026, this Paper Citation Record lists 33 of 33"
    )
    assert later["outbound"] == json.loads(sample_record_path.read_text())["outbound"]
