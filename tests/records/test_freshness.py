"""A cached record is never stale: every kind of write that changes a record bumps its version.

Each test warms the caches (API, .json and page), makes one kind of write, and checks that the
next conditional GET with the old ETag gets the new record (200, new ETag, the bytes a fresh
build gives), on all three URLs. See curation/record/migrations/0001_initial.py for which writes bump what.
"""

from __future__ import annotations

import io
import json
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from citerec.caches import local_caches
from curation.audit import Actor, audited
from curation.models import Observation, Paper
from curation.notices.services import refresh
from curation.record.builder import build_record, record_bytes
from curation.record.models import RecordVersion
from curation.resolution.services import observations_resolve
from curation.resolution.services.catalogue_imports import import_arxiv_snapshot
from curation.services import record_import
from curation.services.measurements import paper_record_measurement
from curation.services.observations import observation_link_arxiv, observation_set_state
from tests import records_factory as rf
from tests.notices.conftest import FakeCrossref, load_fixture
from tests.notices.conftest import crossref as crossref  # noqa: F401  (the fixture)
from tests.notices.records import import_citing_record, work_for
from tests.resolution.snapshot import snapshot_line

pytestmark = pytest.mark.django_db

SAMPLE = "2412.14374"
CURATOR = Actor.command("tests")
MICPRO = "10.1016/j.micpro.2020.103053"


@pytest.fixture(autouse=True)
def _own_caches(settings: Any) -> None:
    settings.CACHES = local_caches({"default": 300, "records": 300}, f"fresh-{uuid.uuid4()}")


@pytest.fixture
def sample(sample_record_path: Path) -> None:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())


def _paths(arxiv_id: str) -> list[str]:
    return [
        f"/api/v1/records/{arxiv_id}",
        f"/paper/{arxiv_id}/citation-record.json",
        f"/paper/{arxiv_id}/citation-record",
    ]


def etags(arxiv_id: str) -> dict[str, str]:
    """GET the record on its three URLs (so each is cached) and return their ETags."""
    client = Client()
    found = {}
    for path in _paths(arxiv_id):
        response = client.get(path)
        assert response.status_code == 200, path
        assert client.get(path, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
        found[path] = response["ETag"]
    return found


def _without_as_of(body: bytes) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(body)
    del document["as_of"]
    return document


def assert_fresh(before: dict[str, str]) -> None:
    """Assert that none of the old ETags 304s any more and the served record is a fresh build."""
    client = Client()
    for path, etag in before.items():
        response = client.get(path, HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 200, f"{path} answered {response.status_code}"
        assert response["ETag"] != etag, path
        if path.startswith("/api/"):
            arxiv_id = path.removeprefix("/api/v1/records/")
            built = build_record(arxiv_id, timezone.now())
            assert built is not None
            assert _without_as_of(response.content) == _without_as_of(record_bytes(built))


def _observation(index: int, arxiv_id: str = SAMPLE) -> Observation:
    return Observation.objects.get(paper__arxiv_id=arxiv_id, reference_index=index)


def test_a_curator_decision_refreshes_the_citing_record(sample: None) -> None:
    before = etags(SAMPLE)
    junk = _observation(33)  # "write newline"

    observation_set_state(
        observation=junk,
        status="parse_uncertain",
        expected_revision=junk.revision,
        actor=CURATOR,
        reason="BibTeX artefact",
    )

    assert_fresh(before)


def test_a_link_refreshes_the_cited_papers_record_too(sample: None) -> None:
    linked = _observation(6)  # names arXiv:1604.06174 but says unresolved
    cited = "1604.06174"
    before = {**etags(SAMPLE), **etags(cited)}

    observation_link_arxiv(
        observation=linked,
        arxiv_id=cited,
        expected_revision=linked.revision,
        actor=CURATOR,
        reason="id and title agree",
    )

    assert_fresh(before)
    inbound = json.loads(Client().get(f"/paper/{cited}/citation-record.json").content)["inbound"]
    assert [o["citation"]["citing_paper"]["arxiv_id"] for o in inbound] == [SAMPLE]


def test_a_resolver_run_refreshes_the_record(sample: None) -> None:
    before = etags(SAMPLE)

    observations_resolve(
        observations=list(Observation.objects.filter(paper__arxiv_id=SAMPLE)[:5]),
        actor=Actor.command("resolve"),
        reason="test run",
    )

    assert_fresh(before)


def test_a_notice_refresh_refreshes_every_record_citing_the_work(
    crossref: FakeCrossref,  # noqa: F811
) -> None:
    import_citing_record(dois=[MICPRO], citing="2412.00001")
    import_citing_record(dois=[MICPRO], citing="2412.00002")
    before = {**etags("2412.00001"), **etags("2412.00002")}
    crossref.work(MICPRO, load_fixture("crossref_work_micpro_retracted.json"))
    crossref.notices(MICPRO, load_fixture("crossref_notices_micpro.json"))

    refresh(work=work_for(MICPRO), actor=CURATOR, reason="test refresh", sources=["crossref"])

    assert_fresh(before)
    again = {**etags("2412.00001"), **etags("2412.00002")}
    # Nothing new found still moves the receipt times, so the digest: the record changes.
    refresh(work=work_for(MICPRO), actor=CURATOR, reason="test refresh", sources=["crossref"])
    assert_fresh(again)


def test_a_catalogue_import_refreshes_records_showing_the_paper(
    sample: None, tmp_path: Path
) -> None:
    before = {**etags(SAMPLE), **etags("1604.06174")}
    snapshot = tmp_path / "arxiv.jsonl"
    snapshot.write_text(snapshot_line("1604.06174", "A corrected title", "A. Author", 2016) + "\n")

    import_arxiv_snapshot(path=snapshot, actor=CURATOR, reason="catalogue update")

    assert_fresh(before)
    page = Client().get(f"/paper/{SAMPLE}/citation-record").content.decode()
    assert "A corrected title" in page


def test_a_measurement_refreshes_the_record(sample: None) -> None:
    before = etags(SAMPLE)

    paper_record_measurement(
        paper=Paper.objects.get(arxiv_id=SAMPLE),
        source="crossref",
        count=7,
        doi="10.1000/x",
        observed_at=timezone.now(),
        actor=CURATOR,
        reason="measured",
    )

    assert_fresh(before)


def test_a_reimport_and_a_reference_list_refresh_the_record(tmp_path: Path) -> None:
    citing = "2501.00001"
    document = rf.record(citing, [rf.observation(citing, i) for i in (1, 2)])
    record_import(document=document, actor=CURATOR, reason="first")
    before = etags(citing)
    refs = tmp_path / "refs.txt"
    refs.write_text("[1] A. Author. A new reference list entry. 2020.\n")

    call_command("import_references", citing, str(refs), stdout=io.StringIO())

    assert_fresh(before)


def test_writes_elsewhere_leave_a_record_cached(sample: None) -> None:
    before = etags(SAMPLE)
    version = RecordVersion.objects.get(paper_id=Paper.objects.get(arxiv_id=SAMPLE).pk).version
    citing = "2501.00009"
    record_import(
        document=rf.record(citing, [rf.observation(citing, 1)]), actor=CURATOR, reason="other"
    )
    paper = Paper.objects.get(arxiv_id=SAMPLE)
    with audited(CURATOR, "authors are not in the record"):
        Paper.objects.filter(pk=paper.pk).update(authors="Someone Else")

    assert RecordVersion.objects.get(paper_id=paper.pk).version == version
    client = Client()
    for path, etag in before.items():
        assert client.get(path, HTTP_IF_NONE_MATCH=etag).status_code == 304, path


def test_the_next_day_is_a_new_build_as_the_thesis_names_the_day(
    sample: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = etags(SAMPLE)
    tomorrow = timezone.now() + timedelta(days=1)
    monkeypatch.setattr(timezone, "now", lambda: tomorrow)

    assert_fresh(before)
    thesis = json.loads(Client().get(f"/paper/{SAMPLE}/citation-record.json").content)["thesis"]
    assert thesis.startswith(f"As of {tomorrow.day} {tomorrow.strftime('%B')} {tomorrow.year},")
