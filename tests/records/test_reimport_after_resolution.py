"""Re-importing a record after citerec resolved it keeps citerec's decisions (SPEC §1).

The file owns what it imported (the reference as described, its numbering, the papers' snapshots,
the imported resolution and notice while citerec has not replaced them); citerec owns its
resolution, its links and the standing notices that follow them. An unchanged file is a no-op.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from curation.models import Observation, ObservationEvent, ResolutionEvent, StandingNoticeEvent
from tests import records_factory as rf
from tests.records.test_roundtrip import export
from tests.resolution.conftest import FIXTURES

pytestmark = pytest.mark.django_db

CITING = "2412.14374"
AS_OF = "2026-11-30T12:00:00Z"


@pytest.fixture(autouse=True)
def offline(settings: Any) -> None:
    settings.CITEREC_OFFLINE = True


def run_import(path: Path) -> str:
    out = io.StringIO()
    call_command("import_records", str(path), stdout=out)
    return out.getvalue()


# Reference 27 names the DeepSpeed KDD paper: a DOI record the resolver verifies it against.
DEEPSPEED = {
    "DOI": "10.1145/3394486.3406703",
    "type": "proceedings-article",
    "title": [
        "DeepSpeed: System Optimizations Enable Training Deep Learning Models with Over 100 "
        "Billion Parameters"
    ],
    "author": [{"family": "Rasley", "given": "Jeff"}],
    "issued": {"date-parts": [[2020, 8, 23]]},
    "container-title": ["Proceedings of the 26th ACM SIGKDD"],
}


def import_resolve(sample_record_path: Path, tmp_path: Path) -> None:
    run_import(sample_record_path)
    call_command(
        "import_arxiv_snapshot", str(FIXTURES / "seed_catalogue.jsonl"),
        "--no-requeue", stdout=io.StringIO(), verbosity=0,
    )  # fmt: skip
    works = tmp_path / "crossref.jsonl"
    works.write_text(json.dumps(DEEPSPEED) + "\n")
    call_command("import_crossref_works", str(works), stdout=io.StringIO(), verbosity=0)
    call_command("resolve", "--all", "--sync", stdout=io.StringIO(), verbosity=0)


def by_index() -> dict[int, Observation]:
    return {
        o.reference_index: o
        for o in Observation.objects.filter(paper__arxiv_id=CITING).select_related(
            "resolution", "cited_paper", "cited_work", "standing_notice"
        )
    }


def history_counts() -> tuple[int, int, int]:
    return (
        ObservationEvent.objects.count(),
        ResolutionEvent.objects.count(),
        StandingNoticeEvent.objects.count(),
    )


def test_reimport_after_resolution_is_a_true_no_op(
    sample_record_path: Path, tmp_path: Path
) -> None:
    import_resolve(sample_record_path, tmp_path)
    assert by_index()[27].work_doi == DEEPSPEED["DOI"]  # verified by citerec, null in the file
    before = export(CITING, AS_OF)
    links = {i: (o.cited_paper_id, o.cited_work_id, o.work_doi) for i, o in by_index().items()}
    history = history_counts()

    out = run_import(sample_record_path)

    assert "created 0, updated 0, unchanged 33, retired 0" in out
    assert export(CITING, AS_OF) == before  # byte-identical
    assert history_counts() == history
    after = by_index()
    assert {i: (o.cited_paper_id, o.cited_work_id, o.work_doi) for i, o in after.items()} == links
    for index in (9, 16, 24):  # linked by citerec, null in the file
        assert after[index].resolution.status == "verified_exact"
        assert after[index].cited_paper is not None
        assert after[index].resolution.origin == "computed"


def test_a_changed_file_updates_only_what_it_owns(sample_record_path: Path, tmp_path: Path) -> None:
    import_resolve(sample_record_path, tmp_path)
    linked = by_index()[9]
    document = json.loads(sample_record_path.read_text())
    item = next(o for o in document["outbound"] if o["citation"]["reference_index"] == 9)
    item["citation"]["cited_work"]["venue"] = "ICLR 2021"  # the file's own field changed
    item["resolution"]["status"] = "metadata_mismatch"  # the other system's judgement
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(rf.reseal(document)))

    out = run_import(path)

    assert "created 0, updated 1, unchanged 32, retired 0" in out
    after = by_index()[9]
    assert after.work_venue == "ICLR 2021"
    assert after.revision == linked.revision + 1
    # citerec's resolution and link stand: the file's judgement is not citerec's.
    assert after.resolution.status == "verified_exact"
    assert after.resolution.origin == "computed"
    assert after.cited_paper_id == linked.cited_paper_id
    assert after.cited_work_id == linked.cited_work_id
    assert after.standing_notice.origin == "computed"
