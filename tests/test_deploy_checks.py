"""`check --deploy` tells when the cache Redis would refuse writes or grow without bound."""

from __future__ import annotations

import pytest
from django.test import override_settings

from citerec.caches import redis_caches
from citerec.deploy_checks import cache_redis_gives_way
from tests.own_redis import OwnRedis, own_redis_fixture  # noqa: F401  (fixture)


def _caches(url: str) -> dict[str, dict[str, object]]:
    return redis_caches(url, prefix="", timeouts={"default": 300, "records": 600}, wait=0.5)


def _ids(url: str, broker: str) -> list[str]:
    with override_settings(CACHES=_caches(url), CELERY_BROKER_URL=broker):
        return [m.id for m in cache_redis_gives_way()]


def test_redis_defaults_are_flagged(own_redis: OwnRedis) -> None:
    # A fresh redis-server: no maxmemory, noeviction (the Redis default).
    assert _ids(own_redis.url, broker=own_redis.url) == ["citerec.W001", "citerec.W002"]


def test_bounded_volatile_redis_shared_with_the_broker_is_clean(own_redis: OwnRedis) -> None:
    own_redis.client().config_set("maxmemory", "64mb")
    own_redis.client().config_set("maxmemory-policy", "volatile-lru")
    assert _ids(own_redis.url, broker=own_redis.url) == []


@pytest.mark.parametrize("shares_broker, expected", [(True, ["citerec.W003"]), (False, [])])
def test_allkeys_eviction_is_unsafe_only_beside_the_queues(
    own_redis: OwnRedis, shares_broker: bool, expected: list[str]
) -> None:
    own_redis.client().config_set("maxmemory", "64mb")
    own_redis.client().config_set("maxmemory-policy", "allkeys-lru")
    broker = own_redis.url if shares_broker else "redis://127.0.0.1:1/0"
    assert _ids(own_redis.url, broker=broker) == expected


def test_an_unreachable_cache_redis_is_reported_not_raised(own_redis: OwnRedis) -> None:
    url = own_redis.url
    own_redis.process.kill()
    own_redis.process.wait(timeout=30)
    assert _ids(url, broker=url) == ["citerec.I001"]


def test_no_redis_cache_means_nothing_to_check() -> None:
    local = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with override_settings(CACHES=local):
        assert list(cache_redis_gives_way()) == []
