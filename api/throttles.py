"""Request limits: anonymous readers by address, token holders by user; state in the cache.

Throttles fail open: with the cache (Redis) down, requests go through rather than fail. The Redis
caches ignore connection errors and log the outage once a minute (settings, citerec/outage.py).
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache as default_cache
from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from citerec.client_ip import client_address

_OFF = {"", "off", "none"}


class _HistoryCache:
    """The default cache, where an unreachable cache reads as an empty history (fail open).

    django-redis answers None for any read while Redis is down (IGNORE_EXCEPTIONS); DRF cannot
    count None, and a throttle history is never stored as None, so None means "no history".
    """

    def get(self, key: str, default: Any = None) -> Any:
        """Return the stored history, or the default when absent or unreadable."""
        value = default_cache.get(key, default)
        return default if value is None else value

    def set(self, key: str, value: Any, timeout: float | None = None) -> None:
        """Store the history; dropped silently while the cache is down."""
        default_cache.set(key, value, timeout)


class _Switchable:
    """Read the rate from settings; "off" disables the throttle (benchmarks, trusted mirrors)."""

    cache = _HistoryCache()

    def get_rate(self) -> str | None:
        rate: str | None = super().get_rate()  # type: ignore[misc]
        return None if rate is None or rate.strip().lower() in _OFF else rate

    def get_ident(self, request: Request) -> str:
        """Return the client's address, trusting X-Forwarded-For only via NUM_PROXIES."""
        return client_address(request._request)


class AnonReadThrottle(_Switchable, AnonRateThrottle):
    """Limit anonymous clients per address (DEFAULT_THROTTLE_RATES["anon"])."""


class UserReadThrottle(_Switchable, UserRateThrottle):
    """Limit authenticated clients per user (DEFAULT_THROTTLE_RATES["user"]), a higher rate."""

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        """Leave anonymous clients to the anonymous throttle (one cache round trip, not two)."""
        if not request.user or not request.user.is_authenticated:
            return None
        return super().get_cache_key(request, view)
