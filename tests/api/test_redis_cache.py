"""With Redis configured, throttle counts live in Redis, where every worker process sees them."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import redis
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

pytestmark = pytest.mark.django_db


def test_throttle_counts_are_shared_through_redis(
    redis_url: str, settings: Any, monkeypatch: pytest.MonkeyPatch, anon: APIClient
) -> None:
    prefix = f"citerec-test-{uuid.uuid4()}"  # this run's keys only; the broker's stay untouched
    settings.CACHES = {
        alias: {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": f"{prefix}:{alias}",
        }
        for alias in ("default", "records")
    }
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "2/min", "user": "4/min"})
    other_process = redis.Redis.from_url(redis_url)
    try:
        assert [anon.get("/api/v1/papers").status_code for _ in range(3)] == [200, 200, 429]
        keys = other_process.keys(f"{prefix}:default:*throttle_anon_*")
        assert len(keys) == 1
    finally:
        for key in other_process.scan_iter(f"{prefix}:*"):
            other_process.delete(key)
