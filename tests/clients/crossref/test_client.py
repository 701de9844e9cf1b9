"""The Crossref client against a local server that speaks Crossref's JSON (never the internet)."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from curation.clients.crossref.cache import MemoryCache
from curation.clients.crossref.client import (
    CrossrefClient,
    CrossrefError,
    CrossrefOffline,
    CrossrefUnavailable,
    retry_after_seconds,
)
from curation.clients.crossref.throttle import LocalThrottle, RedisThrottle

DOI = "10.1038/nature14539"
WORK = {"DOI": DOI, "title": ["Deep learning"], "type": "journal-article"}


def ok(message: dict[str, Any]) -> str:
    return json.dumps({"status": "ok", "message-type": "work", "message": message})


class Sleeps:
    """A fake sleep that records what it was asked to wait."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def client(httpserver: HTTPServer, sleeps: Sleeps) -> CrossrefClient:
    return CrossrefClient(
        base_url=httpserver.url_for("/"),
        mailto="curators@example.org",
        offline=False,
        timeout=0.2,
        max_retries=2,
        throttle=LocalThrottle(1000, sleep=sleeps),
        cache=MemoryCache(),
        sleep=sleeps,
    )


def test_work_returns_the_message_with_polite_identity(httpserver: HTTPServer, client) -> None:
    httpserver.expect_request(
        f"/works/{DOI}", query_string={"mailto": "curators@example.org"}
    ).respond_with_data(ok(WORK), content_type="application/json")
    assert client.work(DOI) == WORK
    request, _ = httpserver.log[0]
    assert "mailto:curators@example.org" in request.headers["User-Agent"]


def test_work_is_cached(httpserver: HTTPServer, client) -> None:
    httpserver.expect_request(f"/works/{DOI}").respond_with_data(ok(WORK))
    client.work(DOI)
    client.work(DOI.upper())
    assert len(httpserver.log) == 1


def test_unknown_doi_is_none_and_cached_briefly(httpserver: HTTPServer, client) -> None:
    httpserver.expect_request("/works/10.1/none").respond_with_data("Resource not found.", 404)
    assert client.work("10.1/none") is None
    assert client.work("10.1/none") is None
    assert len(httpserver.log) == 1


def test_works_passes_the_query(httpserver: HTTPServer, client) -> None:
    listing = {"items": [WORK], "total-results": 1}
    httpserver.expect_request(
        "/works", query_string={"filter": "updates:10.1/x", "mailto": "curators@example.org"}
    ).respond_with_data(ok(listing))
    assert client.works({"filter": "updates:10.1/x"}) == listing


def test_offline_calls_nothing(httpserver: HTTPServer, sleeps: Sleeps) -> None:
    client = CrossrefClient(
        base_url=httpserver.url_for("/"),
        offline=True,
        cache=MemoryCache(),
        throttle=LocalThrottle(10, sleep=sleeps),
    )
    with pytest.raises(CrossrefOffline):
        client.work(DOI)
    with pytest.raises(CrossrefOffline):
        client.works({"query": "x"})
    assert httpserver.log == []


def test_retry_after_is_respected_then_the_answer_is_used(
    httpserver: HTTPServer, client, sleeps: Sleeps
) -> None:
    answers = iter(
        [Response("slow down", 429, headers={"Retry-After": "3"}), Response(ok(WORK), 200)]
    )
    httpserver.expect_request(f"/works/{DOI}").respond_with_handler(lambda r: next(answers))
    assert client.work(DOI) == WORK
    assert len(httpserver.log) == 2
    assert any(2.9 <= s <= 3.01 for s in sleeps.calls)  # the throttle held us for Retry-After


def test_server_errors_give_up_after_the_retry_cap(
    httpserver: HTTPServer, client, sleeps: Sleeps
) -> None:
    httpserver.expect_request(f"/works/{DOI}").respond_with_data("oops", 503)
    with pytest.raises(CrossrefUnavailable, match="gave up after 3 tries"):
        client.work(DOI)
    assert len(httpserver.log) == 3
    assert len([s for s in sleeps.calls if s > 0]) >= 2  # backed off between tries


def test_a_failure_is_not_cached(httpserver: HTTPServer, client) -> None:
    httpserver.expect_request(f"/works/{DOI}").respond_with_data("oops", 502)
    with pytest.raises(CrossrefUnavailable):
        client.work(DOI)
    httpserver.clear()
    httpserver.expect_request(f"/works/{DOI}").respond_with_data(ok(WORK))
    assert client.work(DOI) == WORK


def test_too_long_retry_after_gives_up_at_once(httpserver: HTTPServer, client) -> None:
    httpserver.expect_request(f"/works/{DOI}").respond_with_data(
        "", 429, headers={"Retry-After": "86400"}
    )
    with pytest.raises(CrossrefUnavailable, match="too long"):
        client.work(DOI)
    assert len(httpserver.log) == 1


def test_slow_answers_time_out_and_give_up(httpserver: HTTPServer, client) -> None:
    def slow(request: Request) -> Response:
        time.sleep(0.5)
        return Response(ok(WORK))

    httpserver.expect_request(f"/works/{DOI}").respond_with_handler(slow)
    with pytest.raises(CrossrefUnavailable, match="timeout"):
        client.work(DOI)


def test_bad_json_is_unavailable(httpserver: HTTPServer, client) -> None:
    httpserver.expect_request(f"/works/{DOI}").respond_with_data("<html>", 200)
    with pytest.raises(CrossrefUnavailable, match="not JSON"):
        client.work(DOI)


def test_client_error_is_an_error_without_retry(httpserver: HTTPServer, client) -> None:
    httpserver.expect_request("/works").respond_with_data("bad filter", 400)
    with pytest.raises(CrossrefError):
        client.works({"filter": "nonsense"})
    assert len(httpserver.log) == 1


def test_retry_after_accepts_http_dates() -> None:
    assert retry_after_seconds("120", 0) == 120
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", 1445412470) == pytest.approx(10)
    assert retry_after_seconds("soon", 0) is None


def test_local_throttle_spaces_requests() -> None:
    now = [100.0]
    waits: list[float] = []
    throttle = LocalThrottle(2, clock=lambda: now[0], sleep=waits.append)
    for _ in range(3):
        throttle.wait()
    throttle.block(10)
    throttle.wait()
    assert waits == [0.5, 1.0, 10.0]


def test_redis_throttle_is_shared_between_workers() -> None:
    redis = pytest.importorskip("redis")
    server = redis.Redis.from_url("redis://127.0.0.1:6379/14")
    try:
        server.ping()
    except redis.ConnectionError:
        pytest.skip("no Redis at 127.0.0.1:6379")
    key = f"test:throttle:{uuid.uuid4()}"
    now = [1000.0]
    waits: list[float] = []
    one = RedisThrottle(server, key, 4, clock=lambda: now[0], sleep=waits.append)
    two = RedisThrottle(server, key, 4, clock=lambda: now[0], sleep=waits.append)
    one.wait()
    two.wait()
    one.wait()
    two.block(5)
    one.wait()
    server.delete(key)
    assert waits == [0.25, 0.5, 5.0]


@pytest.mark.parametrize("prefix", ["ci-run-7", ""])
def test_redis_keys_carry_the_deployment_prefix(settings, prefix: str) -> None:
    pytest.importorskip("redis")
    settings.REDIS_URL = "redis://127.0.0.1:6379/14"  # never contacted: only the keys are read
    settings.REDIS_KEY_PREFIX = prefix
    client = CrossrefClient(offline=True)
    assert isinstance(client.throttle, RedisThrottle)
    start = f"{prefix}:citerec:" if prefix else "citerec:"
    assert client.throttle.key == f"{start}throttle:crossref"
    assert client.cache._prefix == f"{start}crossref:"  # type: ignore[attr-defined]
