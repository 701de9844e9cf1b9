"""A cache (Redis) outage degrades the site instead of failing it: pages and API reads answer,
throttles let requests through, /healthz names the failed cache, and the outage is logged once
per interval rather than per request."""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import Any

import pytest
import redis
from django.core.management import call_command
from django.test import Client

from citerec.caches import redis_caches
from citerec.outage import OncePerInterval
from tests.conftest import free_port
from tests.own_redis import OwnRedis, own_redis_fixture  # noqa: F401  (their fixture)

pytestmark = pytest.mark.django_db

PAGES = [
    "/api/v1/papers",
    "/api/v1/papers/2412.14374",
    "/api/v1/records",
    "/api/v1/records/2412.14374",
    "/api/v1/observations",
    "/api/v1/cited-works",
    "/api/v1/notice-events",
    "/paper/2412.14374/citation-record",
    "/paper/2412.14374/citation-record.json",
]
TIMEOUTS = {"default": 300, "records": 300, "record_stamps": 60}


@pytest.fixture
def outage_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Capture the cache outage log, with the once-per-interval filter starting afresh."""
    for log_filter in logging.getLogger("citerec.cache").filters:
        if isinstance(log_filter, OncePerInterval):
            log_filter.reset()
    caplog.set_level(logging.INFO)
    return caplog


def _import_sample(sample_record_path: Path) -> None:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())


def test_pages_and_api_answer_after_the_cache_redis_stops(
    own_redis: OwnRedis,
    settings: Any,
    sample_record_path: Path,
    outage_log: pytest.LogCaptureFixture,
) -> None:
    url, server = own_redis.url, own_redis.process
    settings.CACHES = redis_caches(url, prefix="degrade:", timeouts=TIMEOUTS, wait=0.5)
    _import_sample(sample_record_path)
    client = Client()
    assert {path: client.get(path).status_code for path in PAGES} == dict.fromkeys(PAGES, 200)
    assert redis.Redis.from_url(url).keys("degrade:*"), "the pages used the cache while it was up"

    server.terminate()
    server.wait(timeout=30)

    for _ in range(3):  # the pooled connections are dead now, then new ones are refused
        assert {path: client.get(path).status_code for path in PAGES} == dict.fromkeys(PAGES, 200)
    health = client.get("/healthz")
    assert health.status_code == 200
    body = health.json()
    assert body["status"] == "degraded"
    assert body["checks"]["cache"] == {
        "status": "failed",
        "error": "ConnectionError",
        "required": False,
    }
    assert body["checks"]["database"]["status"] == "ok"
    assert body["problems"] == ["cache: ConnectionError"]
    outages = [r for r in outage_log.records if r.name == "citerec.cache"]
    assert len(outages) == 1, [r.getMessage() for r in outages]  # dozens of failed cache calls


def test_throttle_lets_requests_through_while_the_cache_is_down(
    settings: Any, sample_record_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "1/min", "user": "1/min"})
    settings.CACHES = redis_caches(
        f"redis://127.0.0.1:{free_port()}/0", prefix="", timeouts=TIMEOUTS, wait=0.5
    )
    client = Client()
    assert [client.get("/api/v1/papers").status_code for _ in range(4)] == [200] * 4


def test_healthz_is_503_when_the_cache_is_required_and_down(settings: Any) -> None:
    settings.CACHES = redis_caches(
        f"redis://127.0.0.1:{free_port()}/0", prefix="", timeouts=TIMEOUTS, wait=0.5
    )
    settings.HEALTHZ_REQUIRED = ["database", "broker", "cache"]
    response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert response.json()["problems"] == ["cache: ConnectionError"]


def test_healthz_names_every_check_when_all_answer(settings: Any) -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200
    checks = response.json()["checks"]
    assert sorted(checks) == ["broker", "cache", "database"]
    assert {name: check["status"] for name, check in checks.items()} == dict.fromkeys(checks, "ok")
    assert checks["database"]["backend"] == "postgresql"


def test_outage_log_passes_one_record_per_interval_and_counts_the_rest() -> None:
    now = [0.0]
    once = OncePerInterval(seconds=60, clock=lambda: now[0])

    def record(msg: str) -> logging.LogRecord:
        return logging.LogRecord("citerec.cache", logging.ERROR, __file__, 1, msg, None, None)

    assert once.filter(record("Exception ignored"))
    assert not any(once.filter(record("Exception ignored")) for _ in range(9))
    assert once.filter(record("another message"))  # another kind passes on its own
    now[0] = 61.0
    later = record("Exception ignored")
    assert once.filter(later)
    assert later.getMessage() == "Exception ignored (9 more like it in the last 60 s)"
