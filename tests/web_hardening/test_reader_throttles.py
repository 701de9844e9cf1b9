"""Reader pages are throttled like the API: the record's .json URL shares the API's anonymous
budget (no way around it), the integrity page has a tighter budget of its own and is built once
per record version, and a refusal is a small plain-text 429 with Retry-After."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.throttling import SimpleRateThrottle

from curation.audit import Actor
from curation.models import Observation
from curation.services.observations import observation_set_state
from curation.states import ResolutionStatus
from curation.views import integrity
from tests.api.test_record_revalidation import wsgi_get

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("own_caches", "sample")]

API = "/api/v1/records/2412.14374"
JSON_URL = "/paper/2412.14374/citation-record.json"
PAGES = [
    "/paper/2412.14374/citation-record",
    JSON_URL,
    "/paper/2412.14374",
    "/paper/2412.14374/integrity",
    "/paper/2412.14374/integrity.json",
    "/evidence",
]


def _rates(monkeypatch: pytest.MonkeyPatch, **rates: str) -> None:
    # DRF reads the rates once, into a class attribute, when throttling is imported.
    every = {"anon": "off", "user": "off", "integrity": "off", "bad_token": "off"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {**every, **rates})


def _is_plain_429(response: Any) -> bool:
    return (
        response.status_code == 429
        and response["Content-Type"].startswith("text/plain")
        and int(response["Retry-After"]) >= 1
        and len(response.content) < 200
    )


@pytest.mark.parametrize("path", PAGES)
def test_every_reader_page_is_limited_per_address(
    monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    _rates(monkeypatch, anon="2/min")
    client = Client()

    codes = [client.get(path).status_code for _ in range(2)]
    refused = client.get(path)

    assert codes == [200, 200]
    assert _is_plain_429(refused), (refused.status_code, refused.content[:200])
    other_address = client.get(path, REMOTE_ADDR="198.51.100.7")
    assert other_address.status_code == 200


def test_the_json_url_shares_the_api_anonymous_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    _rates(monkeypatch, anon="3/min")
    client = Client()

    assert [client.get(url).status_code for url in (API, JSON_URL, API)] == [200, 200, 200]
    assert _is_plain_429(client.get(JSON_URL))
    assert client.get(API).status_code == 429


@pytest.fixture
def fresh_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection as at a request's start (see tests/api/test_record_revalidation.py)."""
    monkeypatch.setattr(connections["default"], "close_at", None)
    monkeypatch.setattr(connections["default"], "errors_occurred", False)


@pytest.mark.usefixtures("fresh_connection")
@pytest.mark.parametrize("path", [JSON_URL, "/paper/2412.14374/citation-record"])
def test_a_revalidation_of_a_page_counts_once_against_the_anonymous_budget(
    monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    _rates(monkeypatch, anon="3/min")
    etag = Client().get(path)["ETag"]  # 1

    assert wsgi_get(path, HTTP_IF_NONE_MATCH=etag)[0] == 304  # 2: in front of Django
    assert wsgi_get(path, HTTP_IF_NONE_MATCH='W/"sha256:0"')[0] == 200  # 3: through both
    status, headers, _ = wsgi_get(path, HTTP_IF_NONE_MATCH=etag)

    assert status == 429 and int(headers["Retry-After"]) >= 1


def test_the_integrity_page_has_a_tighter_budget_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _rates(monkeypatch, anon="100/min", integrity="2/min")
    client = Client()

    codes = [
        client.get("/paper/2412.14374/integrity").status_code,
        client.get("/paper/2412.14374/integrity.json").status_code,
    ]
    refused = client.get("/paper/2412.14374/integrity")

    assert codes == [200, 200]
    assert _is_plain_429(refused)
    assert client.get("/paper/2412.14374/citation-record").status_code == 200


def test_signed_in_readers_and_token_holders_are_counted_by_user(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _rates(monkeypatch, anon="1/min", user="3/min")
    user = get_user_model().objects.create_user("rita", "rita@example.org", "pw-Xk2!long")
    token = Token.objects.create(user=user).key
    session = Client()
    session.force_login(user)
    by_token = Client(HTTP_AUTHORIZATION=f"Token {token}")
    page = "/paper/2412.14374/citation-record"

    codes = [session.get(page).status_code, by_token.get(JSON_URL).status_code]
    codes += [session.get(page).status_code, by_token.get(page).status_code]

    assert codes == [200, 200, 200, 429]  # one budget for Rita, three requests in it
    assert Client().get(page).status_code == 200  # the address's anonymous budget is its own
    bad_token = Client(HTTP_AUTHORIZATION="Token not-a-token").get(page)
    assert bad_token.status_code == 401 and bad_token["Content-Type"].startswith("text/plain")


def test_the_integrity_report_is_built_once_per_record_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    builds: list[str] = []
    build = integrity.integrity_report

    def counted(arxiv_id: str) -> Any:
        builds.append(arxiv_id)
        return build(arxiv_id)

    monkeypatch.setattr(integrity, "integrity_report", counted)
    client = Client()
    before = client.get("/paper/2412.14374/integrity.json").json()
    client.get("/paper/2412.14374/integrity")
    client.get("/paper/2412.14374/integrity.json")
    assert len(builds) == 1

    observation = Observation.objects.get(paper__arxiv_id="2412.14374", reference_index=1)
    observation_set_state(
        observation=observation,
        status=ResolutionStatus.MALFORMED_IDENTIFIER,
        expected_revision=observation.revision,
        reason="test: the report follows the record",
        actor=Actor.command("test"),
    )
    after = client.get("/paper/2412.14374/integrity.json").json()

    assert len(builds) == 2
    assert after["counts"]["advisory"] == before["counts"]["advisory"] + 1
