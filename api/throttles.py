"""Request limits: anonymous readers by address, token holders by user; state in the cache."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

_OFF = {"", "off", "none"}


class _Switchable:
    """Read the rate from settings; "off" disables the throttle (benchmarks, trusted mirrors)."""

    def get_rate(self) -> str | None:
        rate: str | None = super().get_rate()  # type: ignore[misc]
        return None if rate is None or rate.strip().lower() in _OFF else rate


class AnonReadThrottle(_Switchable, AnonRateThrottle):
    """Limit anonymous clients per address (DEFAULT_THROTTLE_RATES["anon"])."""


class UserReadThrottle(_Switchable, UserRateThrottle):
    """Limit authenticated clients per user (DEFAULT_THROTTLE_RATES["user"]), a higher rate."""

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        """Leave anonymous clients to the anonymous throttle (one cache round trip, not two)."""
        if not request.user or not request.user.is_authenticated:
            return None
        return super().get_cache_key(request, view)
