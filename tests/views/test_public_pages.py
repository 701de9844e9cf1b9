"""Public pages for readers: the record page's summary and words, integrity, evidence, API root."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from api.views.root import ENDPOINTS

pytestmark = pytest.mark.django_db

PAGE = "/paper/2412.14374/citation-record"


@pytest.fixture
def sample(sample_record_path: Path) -> dict[str, Any]:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    return json.loads(sample_record_path.read_text())  # type: ignore[no-any-return]


def _text(html: str) -> str:
    """Return what a reader sees: no tags, no attribute values (where machine times live)."""
    return re.sub(r"<[^>]+>", " ", re.sub(r"<(style|script)[\s\S]*?</\1>", " ", html))


def test_the_page_leads_with_a_summary_and_lists_references_compactly(
    client: Client, sample: dict[str, Any]
) -> None:
    html = client.get(PAGE).content.decode()
    summary = html.index('class="summary"')
    assert summary < html.index('id="references"')
    assert "33 references" in _text(html[summary:])
    assert html.count('class="ref"') == 33
    assert html.count("<details>") == 33  # a "why" disclosure each, evidence and digest inside
    assert "No retraction, correction or other notice reported" in html
    title = sample["paper"]["title"]
    assert html.count(title) == 2  # the <title> and the heading, not once per reference


def test_people_read_one_timestamp_style(client: Client, sample: dict[str, Any]) -> None:
    text = _text(client.get(PAGE).content.decode())

    assert "+00:00" not in text and not re.search(r"\d\d:\d\d:\d\d", text)
    assert not re.search(r"\d{4}-\d\d-\d\dT", text)
    assert "2026-08-19 06:32 UTC" in text  # the no-event sentence's receipt time


def test_one_advisory_finding_is_not_a_verdict_on_the_paper(
    client: Client, sample: dict[str, Any]
) -> None:
    text = _text(client.get("/paper/2412.14374/integrity").content.decode())

    assert "not clean" not in text.lower() and "Verdict" not in text
    assert "No critical findings;" in text


def test_an_imported_resolution_says_why_it_has_no_evidence(
    client: Client, sample: dict[str, Any]
) -> None:
    observation_id = sample["outbound"][1]["observation_id"]  # the advisory metadata_mismatch
    html = client.get("/evidence", {"observation": observation_id}).content.decode()

    assert "{}" not in _text(html)
    assert "imported from another system" in html
    assert "No event found in the named queried sources as of 2026-08-19 06:32 UTC." in html


@pytest.mark.parametrize("path", ["/api/", "/api/v1/", "/api/v1"])
def test_the_api_root_lists_the_endpoints(client: Client, path: str) -> None:
    response = client.get(path, HTTP_ACCEPT="application/json")

    assert response.status_code == 200
    body = response.json()
    assert [e["path"] for e in body["endpoints"]] == [e[1] for e in ENDPOINTS]
    assert body["openapi"] == "/api/schema/"
    assert client.get(body["openapi"]).status_code == 200
