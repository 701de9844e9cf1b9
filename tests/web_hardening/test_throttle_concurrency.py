"""The anonymous limit holds under concurrency: against a real Redis, 16 clients of one address
sending at once get exactly the limit through (the count is one atomic step in Redis)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from django.test import Client
from rest_framework.throttling import SimpleRateThrottle

from citerec.caches import redis_caches
from tests.own_redis import OwnRedis

pytestmark = pytest.mark.django_db

CLIENTS, REQUESTS_EACH, LIMIT = 16, 8, 20


def test_concurrent_anonymous_clients_get_exactly_the_limit_through(
    own_redis: OwnRedis, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A generous wait: on a busy machine a slow answer must not read as an outage (fail open).
    settings.CACHES = redis_caches(
        own_redis.url, prefix="race:", timeouts={"default": 300, "records": 0}, wait=10
    )
    rates = {"anon": f"{LIMIT}/min", "user": "off", "integrity": "off", "bad_token": "off"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    start = threading.Barrier(CLIENTS)
    codes: Counter[int] = Counter()
    lock = threading.Lock()

    def reader() -> None:
        client = Client()
        start.wait()
        for _ in range(REQUESTS_EACH):
            status = client.get("/api/v1/").status_code
            with lock:
                codes[status] += 1

    threads = [threading.Thread(target=reader) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert codes == {200: LIMIT, 429: CLIENTS * REQUESTS_EACH - LIMIT}
    retry_after = Client().get("/api/v1/")
    assert retry_after.status_code == 429 and 1 <= int(retry_after["Retry-After"]) <= 60
