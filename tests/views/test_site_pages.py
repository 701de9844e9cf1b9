"""The rest of the public site: paper, integrity and evidence pages, the health check."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client, override_settings

from curation.audit import Actor
from curation.record.canonical import canonical_json
from curation.services import record_import
from tests import records_factory as rf

pytestmark = pytest.mark.django_db

RETRACTION = {
    "date": "2023-08-16",
    "notice_doi": "10.1016/j.micpro.2023.104900",
    "notice_url": None,
    "reasons": ["Concerns/Issues About Data"],
    "source": "retraction_watch",
    "source_record_id": "72853",
    "type": "retraction",
}


@pytest.fixture
def sample(sample_record_path: Path) -> dict[str, Any]:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    return json.loads(sample_record_path.read_text())  # type: ignore[no-any-return]


def _retracted_record() -> None:
    item = rf.observation("2504.00001", 1, cited="2001.00001", status="verified_exact")
    item["standing_notice"] = {
        "events": [RETRACTION], "reason": None, "state": "measured",
        "source_receipts": [{"observed_at": "2026-08-19T06:32:39.956319+00:00", "source": "retraction_watch"}],
    }
    clean = rf.observation("2504.00001", 2, cited="2001.00002", status="verified_exact")
    doc = rf.reseal(rf.record("2504.00001", [item, clean]))
    record_import(document=doc, actor=Actor.command("test"), reason="fixture")


def test_every_link_in_the_sample_record_resolves(client: Client, sample: dict[str, Any]) -> None:
    body = json.loads(client.get("/paper/2412.14374/citation-record.json").content)
    links = set(body["links"].values())
    for item in body["outbound"]:
        links |= set(item["links"].values())
        links.add(f"/evidence?observation={item['observation_id']}")
    for link in sorted(links):
        assert client.get(link).status_code == 200, link
    assert len(links) > 15


def test_paper_page_shows_metadata_counts_and_chart(client: Client, sample: dict[str, Any]) -> None:
    html = client.get("/paper/2412.14374").content.decode()
    assert "Scaling Deep Learning Training with MPMD Pipeline Parallelism" in html
    assert "33 outbound references" in html
    assert 'aria-label="unresolved: 20"' in html  # the chart bar
    assert 'href="/paper/2412.14374/citation-record"' in html


def test_a_cited_paper_without_its_own_record_has_a_page(client: Client, sample: dict[str, Any]) -> None:
    assert client.get("/paper/1604.06174").status_code == 200


def test_integrity_states_facts_with_severity_and_verdict(client: Client, sample: dict[str, Any]) -> None:
    report = json.loads(client.get("/paper/2412.14374/integrity.json").content)
    assert report["verdict"] == "not_clean"
    assert report["references_examined"] == 33
    mismatch = [f for f in report["findings"] if f["kind"] == "metadata_mismatch"]
    assert [(f["reference_index"], f["severity"]) for f in mismatch] == [(2, "advisory")]
    assert report["data_observed_at"] == "2026-08-19T06:32:44.657259Z"


def test_retracted_cited_work_is_a_critical_finding_in_json_and_html(client: Client) -> None:
    _retracted_record()
    response = client.get("/paper/2504.00001/integrity.json")
    report = json.loads(response.content)
    assert response.content == canonical_json(report)
    assert report["findings"][0] == {
        "severity": "critical",
        "kind": "retraction",
        "reference_index": 1,
        "observation_id": report["findings"][0]["observation_id"],
        "statement": "Reference 1: retraction_watch reports a retraction dated 2023-08-16 for the cited work (notice 10.1016/j.micpro.2023.104900).",
    }
    assert report["verdict"] == "not_clean"
    assert "1 critical finding: a cited work is retracted" in client.get("/paper/2504.00001/integrity").content.decode()
    record_html = client.get("/paper/2504.00001/citation-record").content.decode()
    assert "Retraction</span> 2023-08-16, reported by retraction_watch" in record_html
    body = json.loads(client.get("/paper/2504.00001/citation-record.json").content)
    for link in {*body["links"].values(), *(v for o in body["outbound"] for v in o["links"].values())}:
        assert client.get(link).status_code == 200, link
    observation_id = body["outbound"][0]["observation_id"]
    assert "retraction" in client.get("/evidence", {"observation": observation_id}).content.decode()


def test_integrity_etag_gives_304(client: Client, sample: dict[str, Any]) -> None:
    etag = client.get("/paper/2412.14374/integrity.json")["ETag"]
    assert client.get("/paper/2412.14374/integrity.json", HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_evidence_page_explains_states_and_digests(client: Client) -> None:
    html = client.get("/evidence").content.decode()
    for state in ("verified_exact", "metadata_mismatch", "parse_uncertain"):
        assert state in html
    assert "context_digest" in html and "sort_keys=True" in html


def test_evidence_for_an_observation_shows_its_history(client: Client, sample: dict[str, Any]) -> None:
    obs_id = sample["outbound"][32]["observation_id"]
    html = client.get("/evidence", {"observation": obs_id}).content.decode()
    assert "import records (import)" in html and "import of citation records" in html


@pytest.mark.parametrize("value", ["nope", "00000000-0000-0000-0000-000000000000"])
def test_evidence_for_bad_or_unknown_observation_is_404(client: Client, value: str) -> None:
    assert client.get("/evidence", {"observation": value}).status_code == 404


@pytest.mark.parametrize("path", ["/paper/1913.12345", "/paper/2412.99999/integrity", "/paper/x/integrity.json"])
def test_unknown_papers_are_404(client: Client, path: str) -> None:
    assert client.get(path).status_code == 404


def test_healthz_ok(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json()["status"] == "ok"


@override_settings(REDIS_URL="redis://127.0.0.1:1/0")
def test_healthz_names_a_broker_that_does_not_answer(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["problems"] == ["broker: ConnectionError"]
