"""Bad API tokens are limited per address (429 before any lookup), and refusals are logged once
per address and minute, not once per request."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from citerec.logs import RefusalsOncePerClient

pytestmark = pytest.mark.django_db

PAPERS = "/api/v1/papers"


@pytest.fixture(autouse=True)
def _rates(monkeypatch: pytest.MonkeyPatch, own_caches: None) -> None:
    rates = {"anon": "1000/min", "user": "1000/min", "integrity": "off", "bad_token": "5/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)


@pytest.fixture
def refusal_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Capture django.request, its refusals filter starting afresh."""
    for log_filter in logging.getLogger("django.request").filters:
        if isinstance(log_filter, RefusalsOncePerClient):
            log_filter.reset()
    caplog.set_level(logging.INFO)
    yield caplog


def _guess(client: APIClient, n: int, address: str = "127.0.0.1") -> list[int]:
    return [
        client.get(
            PAPERS, HTTP_AUTHORIZATION=f"Token guess{i:036d}", REMOTE_ADDR=address
        ).status_code
        for i in range(n)
    ]


def test_an_address_sending_bad_tokens_gets_429_before_any_lookup() -> None:
    client = APIClient()
    rita = get_user_model().objects.create_user("rita", "rita@example.org", "pw-Xk2!long")
    good = Token.objects.create(user=rita).key

    assert _guess(client, 5) == [401] * 5
    with CaptureQueriesContext(connection) as queries:
        refused = client.get(PAPERS, HTTP_AUTHORIZATION="Token guess-six")
    right_one = client.get(PAPERS, HTTP_AUTHORIZATION=f"Token {good}")

    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert refused.json()["error"]["code"] == "throttled"
    assert queries.captured_queries == []  # refused before any token (or anything) is read
    assert right_one.status_code == 429  # the address is guessing: no token is looked up
    assert _guess(client, 1, address="198.51.100.7") == [401]  # other addresses are not
    assert client.get(PAPERS).status_code == 200  # nor are requests without a token


def test_good_tokens_are_not_counted_as_failures() -> None:
    client = APIClient()
    rita = get_user_model().objects.create_user("rita", "rita@example.org", "pw-Xk2!long")
    good = Token.objects.create(user=rita).key

    codes = [client.get(PAPERS, HTTP_AUTHORIZATION=f"Token {good}").status_code for _ in range(8)]

    assert codes == [200] * 8


def test_refusals_are_logged_once_per_address(refusal_log: pytest.LogCaptureFixture) -> None:
    client = APIClient()

    codes = _guess(client, 40) + _guess(client, 3, address="198.51.100.7")

    assert codes == [401] * 5 + [429] * 35 + [401] * 3
    lines = [
        r.getMessage() for r in refusal_log.records if r.name == "django.request"
    ]  # Django logs every 4xx answer, as a WARNING
    assert lines == [
        f"Unauthorized: {PAPERS} from 127.0.0.1",
        f"Too Many Requests: {PAPERS} from 127.0.0.1",
        f"Unauthorized: {PAPERS} from 198.51.100.7",
    ]


def test_the_next_refusal_line_sums_up_those_held_back() -> None:
    now = [0.0]
    refusals = RefusalsOncePerClient(seconds=60, clock=lambda: now[0])
    request = RequestFactory().get(PAPERS, REMOTE_ADDR="203.0.113.5")

    def record(status: int) -> logging.LogRecord:
        line = logging.LogRecord(
            "django.request", logging.WARNING, __file__, 1, "%s: %s", ("Unauthorized", PAPERS), None
        )
        line.status_code, line.request = status, request
        return line

    assert refusals.filter(record(401))
    assert not any(refusals.filter(record(401)) for _ in range(9))
    assert refusals.filter(record(404))  # other answers pass untouched
    now[0] = 61.0
    later = record(401)
    assert refusals.filter(later)
    assert later.getMessage() == (
        f"Unauthorized: {PAPERS} from 203.0.113.5 (9 more like it in the last 60 s)"
    )
