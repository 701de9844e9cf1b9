"""The public record endpoints: canonical bytes, weak ETags, the HTML page, the query budget."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from curation.audit import Actor
from curation.record.canonical import canonical_json, context_digest
from curation.record.selectors import RECORD_STATEMENT_BUDGET
from curation.services import record_import
from tests import records_factory as rf

pytestmark = pytest.mark.django_db


@pytest.fixture
def sample(sample_record_path: Path) -> dict:  # type: ignore[type-arg]
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    return json.loads(sample_record_path.read_text())  # type: ignore[no-any-return]


def test_json_serves_canonical_bytes_with_weak_etag(client: Client, sample: dict) -> None:  # type: ignore[type-arg]
    response = client.get("/paper/2412.14374/citation-record.json")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert response.content == canonical_json(body)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:00Z", body["as_of"])
    assert body["context_digest"] == context_digest(body)
    assert body["outbound"] == sample["outbound"]
    assert response["ETag"] == f'W/"{body["context_digest"]}"'


def test_matching_if_none_match_gets_304(client: Client, sample: dict) -> None:  # type: ignore[type-arg]
    etag = client.get("/paper/2412.14374/citation-record.json")["ETag"]

    assert (
        client.get("/paper/2412.14374/citation-record.json", HTTP_IF_NONE_MATCH=etag).status_code
        == 304
    )
    strong = etag.removeprefix("W/")
    assert (
        client.get("/paper/2412.14374/citation-record.json", HTTP_IF_NONE_MATCH=strong).status_code
        == 304
    )
    stale = client.get("/paper/2412.14374/citation-record.json", HTTP_IF_NONE_MATCH='W/"sha256:0"')
    assert stale.status_code == 200


def test_api_record_is_the_same_bytes(client: Client, sample: dict) -> None:  # type: ignore[type-arg]
    page = client.get("/paper/2412.14374/citation-record.json").content
    assert client.get("/api/v1/records/2412.14374").content == page


@pytest.mark.parametrize(
    "path",
    [
        "/paper/2412.99999/citation-record.json",
        "/paper/1913.12345/citation-record.json",
        "/paper/not-an-id/citation-record",
        "/paper/hep-th/9711200/citation-record",
        "/paper/../../etc/passwd/citation-record.json",
        "/paper/2412.14374%00/citation-record.json",
    ],
)
def test_unknown_or_malformed_ids_are_404(client: Client, sample: dict, path: str) -> None:  # type: ignore[type-arg]
    assert client.get(path).status_code == 404


def test_old_style_ids_keep_their_slash(client: Client) -> None:
    doc = rf.record("hep-th/9711200", [rf.observation("hep-th/9711200", 1)])
    record_import(document=doc, actor=Actor.command("test"), reason="fixture")

    response = client.get("/paper/hep-th/9711200/citation-record.json")

    assert response.status_code == 200
    links = json.loads(response.content)["links"]
    assert links["html"] == "/paper/hep-th/9711200/citation-record"
    assert client.get("/paper/hep-th/9711200/citation-record").status_code == 200


def test_page_shows_every_observation_as_the_sample_page_does(client: Client, sample: dict) -> None:  # type: ignore[type-arg]
    html = client.get("/paper/2412.14374/citation-record").content.decode()

    assert "<h1>Scaling Deep Learning Training with MPMD Pipeline Parallelism</h1>" in html
    for item in sample["outbound"]:
        assert f'id="obs-{item["observation_id"]}"' in html
        assert f'<span class="num">[{item["citation"]["reference_index"]}]</span>' in html
        assert f'datetime="{item["resolution"]["observed_at"]}"' in html  # machine form kept
        assert item["observation_digest"] in html
    assert '<a href="/paper/1604.06174">Training Deep Nets with Sublinear Memory Cost</a>' in html
    assert "(no title in the reference)" in html  # reference 5 has no title
    assert "Unresolved — no resolver source," in html
    assert "Verified fuzzy — source raw_fallback," in html
    assert "Not checked: canonical work link unavailable." in html
    assert "No event found in the named queried sources as of 2026-08-19 06:32 UTC." in html
    assert "Inbound itemization" in html
    assert '<span class="n">20</span> <span class="state state-unresolved">' in html


def _big_record() -> None:
    """Store a paper with 150 outbound and 120 inbound verified observations."""
    target = "2502.00001"
    outbound = [
        rf.observation(target, i, cited=f"2301.{i:05d}", status="verified_exact")
        for i in range(1, 151)
    ]
    record_import(
        document=rf.record(target, outbound), actor=Actor.command("test"), reason="fixture"
    )
    for n in range(120):
        citing = f"2503.{n:05d}"
        inbound = [rf.observation(citing, 1, cited=target, status="verified_fuzzy")]
        record_import(
            document=rf.record(citing, inbound), actor=Actor.command("test"), reason="fixture"
        )


def test_record_json_stays_within_the_statement_budget(client: Client) -> None:
    _big_record()
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/paper/2502.00001/citation-record.json")

    assert response.status_code == 200
    assert len(queries) <= RECORD_STATEMENT_BUDGET, [q["sql"][:120] for q in queries]
    body = json.loads(response.content)
    assert len(body["outbound"]) == 100 and len(body["inbound"]) == 100
    assert body["reference_resolution"]["displayed"] == 100
    assert body["reference_resolution"]["total_outbound_references"] == 150
    assert body["thesis"].endswith(
        "lists 100 of 150 outbound references and 120 inbound Pith citation observations for arXiv:2502.00001."
    )
    inbound_lane = body["coverage"][2]
    assert (inbound_lane["denominator"], inbound_lane["records_observed"]) == (120, 100)
    assert body["standing_sources"] == [
        {"observed_at": "2026-08-19T06:32:44.657259+00:00", "source": "crossref"}
    ]
