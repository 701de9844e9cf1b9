"""Cache configurations: Redis that fails open, or per-process memory."""

from __future__ import annotations

from typing import Any


def redis_caches(
    location: str, *, prefix: str, timeouts: dict[str, int], wait: float
) -> dict[str, dict[str, Any]]:
    """Return one django-redis cache per alias, under prefix, that ignores Redis outages.

    While Redis is down, reads miss and writes are dropped (IGNORE_EXCEPTIONS) after at most
    `wait` seconds per call; the outage is logged by django-redis (DJANGO_REDIS_LOGGER).
    """
    return {
        alias: {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": location,
            "KEY_PREFIX": f"{prefix}citerec:{alias}",
            "TIMEOUT": timeout,
            "OPTIONS": {
                "CLIENT_CLASS": "django_redis.client.DefaultClient",
                "IGNORE_EXCEPTIONS": True,
                "SOCKET_CONNECT_TIMEOUT": wait,
                "SOCKET_TIMEOUT": wait,
            },
        }
        for alias, timeout in timeouts.items()
    }


def local_caches(timeouts: dict[str, int], name: str = "citerec") -> dict[str, dict[str, Any]]:
    """Return one in-process memory cache per alias (no Redis configured), named after name."""
    return {
        alias: {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"{name}-{alias}",
            "TIMEOUT": timeout,
        }
        for alias, timeout in timeouts.items()
    }
