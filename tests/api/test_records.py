"""The v1 record through the API: same bytes as the page, weak ETags, budget, change feed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from curation.audit import Actor, audited
from curation.models import Observation
from curation.record.canonical import canonical_json, context_digest
from curation.record.selectors import RECORD_STATEMENT_BUDGET

pytestmark = pytest.mark.django_db

URL = "/api/v1/records/2412.14374"


def test_record_is_the_same_bytes_as_the_page(anon: APIClient, sample: dict[str, Any]) -> None:
    page = anon.get("/paper/2412.14374/citation-record.json")
    api = anon.get(URL)

    assert api.status_code == 200
    assert api.content == page.content
    assert api["ETag"] == page["ETag"] == f'W/"{json.loads(api.content)["context_digest"]}"'
    assert api["Content-Type"] == "application/json; charset=utf-8"
    assert api["Cache-Control"] == "public, max-age=60"


def test_cached_record_is_restamped_and_identical(anon: APIClient, sample: dict[str, Any]) -> None:
    first, second = anon.get(URL).content, anon.get(URL).content  # the second from the cache

    assert first == second
    body = json.loads(second)
    assert second == canonical_json(body) and body["context_digest"] == context_digest(body)
    assert body["outbound"] == sample["outbound"]


def test_matching_etag_gets_304_and_a_stale_one_the_body(
    anon: APIClient, sample: dict[str, Any]
) -> None:
    etag = anon.get(URL)["ETag"]

    not_modified = anon.get(URL, HTTP_IF_NONE_MATCH=etag)
    assert not_modified.status_code == 304 and not_modified.content == b""
    assert not_modified["ETag"] == etag
    assert anon.get(URL, HTTP_IF_NONE_MATCH=etag.removeprefix("W/")).status_code == 304
    assert anon.get(URL, HTTP_IF_NONE_MATCH='W/"sha256:0", ' + etag).status_code == 304
    assert anon.get(URL, HTTP_IF_NONE_MATCH='W/"sha256:0"').status_code == 200


def test_a_substantive_change_shows_at_once(anon: APIClient, sample: dict[str, Any]) -> None:
    etag = anon.get(URL)["ETag"]
    observation = Observation.objects.get(work_title="write newline")
    with audited(Actor.command("test"), "junk reference"):
        observation.retired_at = observation.changed_at = timezone.now()
        observation.save()

    response = anon.get(URL, HTTP_IF_NONE_MATCH=etag)

    assert response.status_code == 200
    assert len(json.loads(response.content)["outbound"]) == len(sample["outbound"]) - 1


def test_record_stays_within_the_statement_budget(anon: APIClient, big_record: str) -> None:
    with CaptureQueriesContext(connection) as queries:
        response = anon.get(f"/api/v1/records/{big_record}")

    assert response.status_code == 200
    assert len(queries) <= RECORD_STATEMENT_BUDGET, [q["sql"][:100] for q in queries]
    body = json.loads(response.content)
    assert (len(body["outbound"]), len(body["inbound"])) == (100, 100)
    with CaptureQueriesContext(connection) as cached:
        assert anon.get(f"/api/v1/records/{big_record}").content == response.content
    assert len(cached) == 1  # the record's version


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/records/2412.99999",
        "/api/v1/records/1913.12345",
        "/api/v1/records/not-an-id",
        "/api/v1/records/hep-th/9711200",
        "/api/v1/records/2412.14374%00",
        "/api/v1/nothing-here",
    ],
)
def test_unknown_records_are_json_404(anon: APIClient, sample: dict[str, Any], path: str) -> None:
    response = anon.get(path)

    assert response.status_code == 404
    assert response.json()["error"]["status"] == 404


def test_record_refuses_parameters(anon: APIClient, sample: dict[str, Any]) -> None:
    response = anon.get(URL, {"fields": "outbound"})

    assert response.status_code == 400
    assert "fields" in response.json()["error"]["detail"]


def test_change_feed_lists_records_changed_since(anon: APIClient, sample: dict[str, Any]) -> None:
    everything = anon.get("/api/v1/records", {"page_size": 200}).json()["results"]
    cited = {
        o["citation"]["cited_paper"]["arxiv_id"]
        for o in sample["outbound"]
        if o["citation"]["cited_paper"]
    }
    # A cited paper's record lists its inbound observations, so their changes count for it too.
    assert {r["arxiv_id"] for r in everything} == {"2412.14374"} | cited
    changed_at = everything[0]["changed_at"]

    assert anon.get("/api/v1/records", {"changed_since": changed_at}).json()["results"]
    later = "2999-01-01T00:00:00Z"
    assert anon.get("/api/v1/records", {"changed_since": later}).json()["results"] == []
    assert anon.get("/api/v1/records", {"changed_since": "yesterday"}).status_code == 400


def test_a_304_is_answered_from_the_version_without_building(
    anon: APIClient, sample: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    etag = anon.get(URL)["ETag"]
    monkeypatch.setattr("curation.record.cache.build_record", _must_not_build)

    with CaptureQueriesContext(connection) as queries:
        assert anon.get(URL, HTTP_IF_NONE_MATCH=etag).status_code == 304
        assert (
            anon.get("/paper/2412.14374/citation-record.json", HTTP_IF_NONE_MATCH=etag).status_code
            == 304
        )
    assert len(queries) == 2  # the record's version, once per request


def _must_not_build(*args: Any) -> None:
    raise AssertionError("a 304 or a cached version must not build the record")


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_unknown_api_paths_are_json_404_for_every_method(anon: APIClient, method: str) -> None:
    client = APIClient(enforce_csrf_checks=True)

    response = getattr(client, method)("/api/v1/observations/null,null/link")

    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_record_reads_count_once_against_the_anonymous_rate(
    anon: APIClient, sample: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "3/min", "user": "9/min"})
    etag = anon.get(URL)["ETag"]  # 1: a 200 answered before DRF
    assert anon.get(URL, HTTP_IF_NONE_MATCH=etag).status_code == 304  # 2: by the middleware
    assert anon.get(URL, HTTP_IF_NONE_MATCH='W/"sha256:0"').status_code == 200  # 3: through both
    refused = anon.get(URL, HTTP_IF_NONE_MATCH=etag)

    assert refused.status_code == 429 and refused.json()["error"]["status"] == 429
    assert "Retry-After" in refused


def test_a_304_from_the_middleware_carries_the_record_headers(
    anon: APIClient, sample: dict[str, Any]
) -> None:
    etag = anon.get(URL)["ETag"]
    for path in (URL, "/paper/2412.14374/citation-record.json"):
        with CaptureQueriesContext(connection) as queries:
            response = anon.get(path, HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 304 and len(queries) == 1
        assert response["ETag"] == etag and response["Cache-Control"] == "public, max-age=60"
    page = anon.get("/paper/2412.14374/citation-record")
    assert page["ETag"] != etag  # another representation of the same version
    assert anon.get("/paper/2412.14374/citation-record", HTTP_IF_NONE_MATCH=etag).status_code == 200
    revalidated = anon.get("/paper/2412.14374/citation-record", HTTP_IF_NONE_MATCH=page["ETag"])
    assert revalidated.status_code == 304
