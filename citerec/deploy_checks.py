"""Deploy checks of the services citerec runs on (`manage.py check --deploy`).

The cache Redis must give way when full: everything citerec caches carries an expiry and the
site works without it, but Redis's default policy, `noeviction`, refuses every write once
`maxmemory` is reached — the broker's too when the cache shares its Redis. Each distinct
`papers?search=` page is one more key, so an unbounded or non-evicting cache grows until Redis
refuses work. README "Redis memory" says what to set; this check says when it is not set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import redis
from django.conf import settings
from django.core import checks

# What evicts only keys with an expiry: safe when Celery's queues (no expiry) share the server.
_VOLATILE = frozenset({"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"})
_ALL_KEYS = frozenset({"allkeys-lru", "allkeys-lfu", "allkeys-random"})


def _server(url: str) -> str:
    """Return host:port/db of a Redis URL, the identity two settings must share to share data."""
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port or 6379}{parts.path or '/0'}"


def _host(url: str) -> tuple[str | None, int]:
    parts = urlsplit(url)
    return parts.hostname, parts.port or 6379


def _shares_broker(cache_url: str) -> bool:
    """Return whether the broker's queues live on the cache's Redis server (any database)."""
    broker = str(getattr(settings, "CELERY_BROKER_URL", ""))
    return broker.startswith(("redis://", "rediss://")) and _host(broker) == _host(cache_url)


def memory_warnings(
    url: str, config: Mapping[Any, Any], *, shares_broker: bool
) -> list[checks.Warning]:
    """Return what is wrong with a cache Redis's memory settings (CONFIG GET maxmemory*)."""
    where = _server(url)
    found: list[checks.Warning] = []
    if int(config.get("maxmemory", 0) or 0) == 0:
        found.append(
            checks.Warning(
                f"the cache Redis at {where} has no maxmemory bound: cached pages grow until the "
                "machine's memory runs out",
                hint="set maxmemory (README 'Redis memory')",
                id="citerec.W001",
            )
        )
    policy = str(config.get("maxmemory-policy", "noeviction"))
    wanted = "volatile-lru" if shares_broker else "allkeys-lru"
    if policy == "noeviction":
        found.append(
            checks.Warning(
                f"the cache Redis at {where} evicts nothing when full (maxmemory-policy noeviction): "
                "it then refuses every write"
                + (", Celery's queues included" if shares_broker else ""),
                hint=f"set maxmemory-policy {wanted} (README 'Redis memory')",
                id="citerec.W002",
            )
        )
    elif shares_broker and policy in _ALL_KEYS:
        found.append(
            checks.Warning(
                f"the cache Redis at {where} is also the broker and evicts any key "
                f"(maxmemory-policy {policy}): queued jobs, which carry no expiry, may be evicted",
                hint="set maxmemory-policy volatile-lru, or give the cache a Redis of its own "
                "(CACHE_REDIS_URL)",
                id="citerec.W003",
            )
        )
    return found


def _cache_urls() -> list[str]:
    """Return each Redis server the caches use, once."""
    urls: dict[str, str] = {}
    for cache in settings.CACHES.values():
        if cache.get("BACKEND", "").startswith("django_redis"):
            urls.setdefault(_server(cache["LOCATION"]), cache["LOCATION"])
    return list(urls.values())


@checks.register(checks.Tags.caches, deploy=True)
def cache_redis_gives_way(
    app_configs: Sequence[Any] | None = None, **_: Any
) -> Iterable[checks.CheckMessage]:
    """Warn when a cache Redis has no memory bound or would refuse writes when full."""
    found: list[checks.CheckMessage] = []
    for url in _cache_urls():
        try:
            client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
            config = client.config_get("maxmemory*")
        except redis.RedisError as exc:  # down, or CONFIG renamed away by a managed service
            found.append(
                checks.Info(
                    f"could not read the memory settings of the cache Redis at {_server(url)}: {exc}",
                    hint="check maxmemory and maxmemory-policy by hand (README 'Redis memory')",
                    id="citerec.I001",
                )
            )
            continue
        found.extend(memory_warnings(url, config, shares_broker=_shares_broker(url)))
    return found
