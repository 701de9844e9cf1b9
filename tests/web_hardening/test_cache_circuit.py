"""A hung cache Redis (paused with SIGSTOP, as a network blackhole hangs a client) costs one wait,
not one per cache call: the circuit breaker skips the cache after the first failure, a probe in the
background finds it back, and /healthz says "degraded" without waiting on it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis
from django.test import Client
from redis.connection import AbstractConnection

from citerec.caches import redis_caches
from tests.own_redis import OwnRedis

pytestmark = pytest.mark.django_db

TIMEOUTS = {"default": 300, "records": 300}
READS = [
    "/api/v1/papers",
    "/api/v1/records/2412.14374",
    "/paper/2412.14374/citation-record",
    "/paper/2412.14374/citation-record.json",
    "/paper/2412.14374",
]
WAIT = 0.5  # seconds a cache call waits for Redis (CACHE_REDIS_TIMEOUT's default)


@pytest.fixture
def cache_waits(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Return a list that gets one entry per cache call of this thread that waited out its
    timeout (the breaker's probe runs in a thread of its own: no request waits on it)."""
    waits: list[str] = []
    test_thread = threading.current_thread()
    inside = threading.local()

    def counted(method: Callable[..., Any]) -> Callable[..., Any]:
        def call(self: AbstractConnection, *args: Any, **kwargs: Any) -> Any:
            outermost = not getattr(inside, "call", False)  # a connect reads a handshake reply
            inside.call = True
            try:
                return method(self, *args, **kwargs)
            except redis.TimeoutError:
                if outermost and threading.current_thread() is test_thread:
                    waits.append(method.__name__)
                raise
            finally:
                inside.call = not outermost

        return call

    for name in ("read_response", "connect_check_health"):
        monkeypatch.setattr(AbstractConnection, name, counted(getattr(AbstractConnection, name)))
    return waits


def _all_answer(client: Client, paths: list[str]) -> dict[str, int]:
    return {path: client.get(path).status_code for path in paths}


def test_a_paused_cache_redis_is_waited_on_once_then_skipped_until_a_probe_finds_it(
    own_redis: OwnRedis, settings: Any, sample: None, cache_waits: list[str]
) -> None:
    settings.CACHES = redis_caches(
        own_redis.url, prefix="circuit:", timeouts=TIMEOUTS, wait=WAIT, circuit_seconds=1.0
    )
    client = Client()
    assert _all_answer(client, READS) == dict.fromkeys(READS, 200)
    assert own_redis.client().keys("circuit:*"), "the cache was used while Redis answered"

    own_redis.pause()
    rounds = 4
    for _ in range(rounds):  # 20 requests, each making 2-4 cache calls
        assert _all_answer(client, READS) == dict.fromkeys(READS, 200)
    health = client.get("/healthz")

    # Without a breaker every cache call of every request waits (40-80 waits of 0.5 s).
    assert len(cache_waits) <= 2, cache_waits
    assert health.status_code == 200
    assert health.json()["status"] == "degraded"
    assert health.json()["checks"]["cache"]["error"] == "TimeoutError"
    waits_while_paused = len(cache_waits)

    own_redis.resume()
    own_redis.client().flushdb()
    deadline = time.monotonic() + 60  # the cool-off is 1 s; the probe runs in the background
    while not own_redis.client().keys("circuit:*"):
        assert time.monotonic() < deadline, "the cache was never used again after Redis resumed"
        assert _all_answer(client, READS[:1]) == {READS[0]: 200}
        time.sleep(0.05)
    assert len(cache_waits) == waits_while_paused  # nothing waited once Redis answered again
    assert client.get("/healthz").json()["status"] == "ok"
