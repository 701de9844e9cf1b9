"""X-Forwarded-For is trusted only as far as NUM_PROXIES: a client cannot dodge the throttle,
nor make a Redis key per invented address, by sending a new header each time."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import redis
from django.test import RequestFactory
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from citerec.caches import redis_caches
from citerec.client_ip import client_address

pytestmark = pytest.mark.django_db

TIMEOUTS = {"default": 300, "records": 0, "record_stamps": 0}


def test_spoofed_forwarded_for_after_a_429_is_still_429_and_makes_no_keys(
    redis_url: str, settings: Any, monkeypatch: pytest.MonkeyPatch, anon: APIClient
) -> None:
    prefix = f"citerec-test-{uuid.uuid4()}"  # this test's keys only
    settings.CACHES = redis_caches(redis_url, prefix=f"{prefix}:", timeouts=TIMEOUTS, wait=0.5)
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "2/min", "user": "4/min"})
    server = redis.Redis.from_url(redis_url)
    try:
        assert [anon.get("/api/v1/papers").status_code for _ in range(3)] == [200, 200, 429]
        keys_before = sorted(server.keys(f"{prefix}:*"))
        spoofed = [
            anon.get("/api/v1/papers", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code
            for n in range(1, 11)
        ]
        assert spoofed == [429] * 10
        assert sorted(server.keys(f"{prefix}:*")) == keys_before
        assert len(keys_before) == 1
    finally:
        for key in server.scan_iter(f"{prefix}:*"):
            server.delete(key)


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "203.0.113.9", "10.0.0.1"),  # no proxy: the header is the client's own invention
        (1, "203.0.113.9", "203.0.113.9"),
        (1, "198.51.100.7, 203.0.113.9", "203.0.113.9"),  # the client's own entry is ignored
        (2, "198.51.100.7, 203.0.113.9", "198.51.100.7"),
        (3, "203.0.113.9", "203.0.113.9"),  # fewer hops than proxies: the first one
        (1, None, "10.0.0.1"),
    ],
)
def test_client_address_trusts_only_the_configured_proxies(
    settings: Any, proxies: int, forwarded: str | None, expected: str
) -> None:
    settings.NUM_PROXIES = proxies
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1", **headers)
    assert client_address(request) == expected


def test_behind_one_proxy_clients_are_counted_apart(
    settings: Any, monkeypatch: pytest.MonkeyPatch, anon: APIClient
) -> None:
    settings.NUM_PROXIES = 1
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "1/min", "user": "4/min"})

    def get(client_ip: str) -> int:
        return anon.get(
            "/api/v1/papers", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=client_ip
        ).status_code

    assert [get("203.0.113.1"), get("203.0.113.1"), get("203.0.113.2")] == [200, 429, 200]
