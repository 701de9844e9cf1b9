"""Standing notices follow links (SPEC §1, §4): a link written by the resolver, a curator or a
re-import recomputes that observation's notice in the same transaction, from stored receipts
and events; a linked work never asked about is queued for a refresh once the change commits."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from curation.audit import Actor, audited
from curation.models import CitedWork, Observation, Paper
from curation.notices.models import NoticeSource, ReceiptOutcome
from curation.notices.services import store_answers
from curation.notices.sources import SourceAnswer
from curation.record.builder import build_record
from curation.resolution.services.works import work_for_paper
from curation.services import record_import, reference_list_import
from curation.services.observations import observation_link_arxiv, observation_set_state
from tests import records_factory as rf
from tests.admin.conftest import CITING, REFERENCES, Listed, build_catalogue, resolve_all
from tests.resolution.conftest import FIXTURES

pytestmark = pytest.mark.django_db

SAMPLE = "2412.14374"
ASKED_AT = datetime(2026, 11, 30, 8, 15, 0, 123456, tzinfo=UTC)
NO_EVENT = (
    "No event found in the named queried sources as of 2026-11-30T08:15:00.123456+00:00."
)
CURATOR = Actor.command("tests")


@pytest.fixture(autouse=True)
def offline(settings: Any) -> None:
    settings.CITEREC_OFFLINE = True


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the refreshes queued instead of running them (no source is asked in tests)."""
    calls: list[int] = []
    monkeypatch.setattr(
        "curation.notices.tasks.refresh_works.apply_async",
        lambda args, kwargs: calls.extend(args[0]),
    )
    return calls


def answered(work: CitedWork) -> None:
    """Store a Crossref answer with no event for the work (as an earlier refresh would have)."""
    answer = SourceAnswer(NoticeSource.CROSSREF, ReceiptOutcome.ANSWERED, ASKED_AT, work.doi or "")
    store_answers(work=work, answers=[answer], actor=CURATOR, reason="earlier refresh")


def work_of(paper: Paper) -> CitedWork:
    """Return the canonical work of an arXiv paper, created as a service would."""
    with audited(CURATOR, "canonical work for the test"):
        return work_for_paper(paper)


def ref(index: int, paper: str = SAMPLE) -> Observation:
    return Observation.objects.select_related("standing_notice", "resolution", "cited_work").get(
        paper__arxiv_id=paper, reference_index=index
    )


def notice(observation: Observation) -> tuple[str, str | None, list[str], str | None]:
    stored = observation.standing_notice
    sources = [r["source"] for r in stored.source_receipts]
    return stored.state, stored.reason, sources, stored.observation_text


def import_sample(sample_record_path: Path) -> None:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    call_command(
        "import_arxiv_snapshot", str(FIXTURES / "seed_catalogue.jsonl"),
        "--no-requeue", stdout=io.StringIO(), verbosity=0,
    )  # fmt: skip


def test_resolver_links_and_unlinks_carry_their_notices(
    sample_record_path: Path, queued: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    import_sample(sample_record_path)
    vit = Paper.objects.get(arxiv_id="2010.11929")  # reference 9, linked by the resolver
    answered(work_of(vit))
    assert notice(ref(1))[0] == "measured"  # imported: "measured" with receipts, no link
    assert notice(ref(6))[1] == "canonical_work_link_unavailable"  # imported, yet linked

    with django_capture_on_commit_callbacks(execute=True):
        call_command("resolve", "--all", "--sync", stdout=io.StringIO(), verbosity=0)

    # Unlinked by citerec: the imported measurement and its receipts go.
    assert notice(ref(1)) == ("unavailable", "canonical_work_link_unavailable", [], None)
    assert ref(1).standing_notice.origin == "computed"
    # Linked to a work with stored receipts: its notice, from stored data.
    assert notice(ref(9)) == ("measured", None, ["crossref"], NO_EVENT)
    # Linked to a work nobody asked about yet: no source answered, and a refresh is queued.
    assert notice(ref(6)) == ("unavailable", "no_source_answered", [], None)
    assert ref(6).cited_work_id in queued
    assert ref(9).cited_work_id not in queued
    assert len(queued) == len(set(queued))


def test_curator_link_and_unlink_carry_their_notices(
    sample_record_path: Path, queued: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    import_sample(sample_record_path)
    vit = Paper.objects.get(arxiv_id="2010.11929")
    answered(work_of(vit))
    linked, unlinked = ref(9), ref(6)

    with django_capture_on_commit_callbacks(execute=True):
        observation_link_arxiv(
            observation=linked,
            arxiv_id=vit.arxiv_id,
            expected_revision=linked.revision,
            actor=CURATOR,
            reason="ViT",
        )
        observation_set_state(
            observation=unlinked,
            status="unresolved",
            expected_revision=unlinked.revision,
            actor=CURATOR,
            reason="not this paper",
        )

    assert notice(ref(9)) == ("measured", None, ["crossref"], NO_EVENT)
    assert ref(9).revision == linked.revision + 1  # one change: the link and its notice
    assert notice(ref(6)) == ("unavailable", "canonical_work_link_unavailable", [], None)
    assert queued == []  # the linked work had been asked already


def test_reimport_that_changes_the_link_recomputes_a_computed_notice(
    queued: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    item = rf.observation("2412.00002", 1, title="A DOI work")
    item["citation"]["cited_work"]["doi"] = "10.1000/first"
    document = rf.reseal(rf.record("2412.00002", [item]))
    actor = Actor.importer("tests")
    record_import(document=document, actor=actor, reason="first import")
    answered(CitedWork.objects.get(doi="10.1000/first"))  # citerec refreshed it: notice computed
    assert ref(1, "2412.00002").standing_notice.origin == "computed"
    changed = json.loads(json.dumps(document))
    changed["outbound"][0]["citation"]["cited_work"]["doi"] = "10.1000/second"

    with django_capture_on_commit_callbacks(execute=True):
        record_import(document=rf.reseal(changed), actor=actor, reason="corrected DOI")

    after = ref(1, "2412.00002")
    assert after.cited_work is not None and after.cited_work.doi == "10.1000/second"
    assert notice(after) == ("unavailable", "no_source_answered", [], None)
    assert queued == [after.cited_work_id]


def test_reimport_keeps_the_files_notice_while_the_observation_is_as_imported() -> None:
    item = rf.observation("2412.00003", 1, title="A DOI work")
    item["citation"]["cited_work"]["doi"] = "10.1000/first"
    document = rf.reseal(rf.record("2412.00003", [item]))
    actor = Actor.importer("tests")
    record_import(document=document, actor=actor, reason="first import")
    changed = json.loads(json.dumps(document))
    changed["outbound"][0]["citation"]["cited_work"]["doi"] = "10.1000/second"

    record_import(document=rf.reseal(changed), actor=actor, reason="corrected DOI")

    after = ref(1, "2412.00003")
    assert after.cited_work is not None and after.cited_work.doi == "10.1000/second"
    assert after.standing_notice.origin == "imported"  # SPEC §1: the file's, unchanged
    assert notice(after)[0] == "measured"


def _lane(record: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in record["coverage"] if c["lane"] == "standing_notices")


def test_coverage_counts_every_observation_with_a_notice_state() -> None:
    build_catalogue()
    Paper.objects.create(arxiv_id=CITING, title="Citing paper", submitted_at=timezone.now())
    reference_list_import(
        arxiv_id=CITING,
        references=[Listed(n, str(n), raw) for n, raw in enumerate(REFERENCES, 1)],
        actor=Actor.importer("tests"),
        reason="a record citerec builds",
    )

    built = build_record(CITING, timezone.now())
    assert built is not None
    lane = _lane(built)
    # No notice rows yet, but every observation has a state ("canonical work link unavailable").
    assert (lane["records_observed"], lane["denominator"]) == (4, 4)
    assert {o["standing_notice"]["state"] for o in built["outbound"]} == {"unavailable"}

    resolve_all()
    resolved = build_record(CITING, timezone.now())
    assert resolved is not None
    assert (_lane(resolved)["records_observed"], _lane(resolved)["denominator"]) == (4, 4)
