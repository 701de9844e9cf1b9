"""Request limits: anonymous readers by address, token holders by user; counts in the cache.

Each limit is a fixed window counted atomically: in Redis one script increments the client's
counter and starts its window on the first request (INCR, then PEXPIRE when it has no expiry yet),
so concurrent requests from one client can never let more than the limit through (DRF's own
throttles read a history, then write it back: 16 concurrent clients got 132 requests through a
limit of 120). The window's remaining time is the 429's Retry-After. Every request counts,
refused ones too, and a window ends at the same time however often it is hit.

Throttles fail open: with the cache (Redis) down or its circuit breaker open (citerec/caches.py),
requests go through rather than fail, and the outage is logged once a minute with the cache's.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import redis
from django.core.cache import cache as default_cache
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

from citerec.client_ip import client_address

_OFF = {"", "off", "none"}

# One round trip, run atomically by Redis: count the hit, start the window on the first one.
_HIT = """
local hits = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {hits, left}
"""
# The window as it stands, without counting (0 hits when there is none).
_PEEK = """
return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}
"""


@dataclass(frozen=True)
class Window:
    """A client's counter: requests counted in the current window, seconds until it ends."""

    hits: int
    seconds_left: float


def count_hit(key: str, seconds: int) -> Window | None:
    """Count a request against key in a window of `seconds`; None when the cache is down."""
    return _redis_window(key, _HIT, seconds) if _is_redis() else _local_window(key, seconds, 1)


def current_window(key: str) -> Window | None:
    """Return key's window without counting; None when the cache is down."""
    return _redis_window(key, _PEEK, 0) if _is_redis() else _local_window(key, 0, 0)


def _is_redis() -> bool:
    return hasattr(default_cache, "client") and hasattr(default_cache.client, "get_client")


def _redis_window(key: str, script: str, seconds: int) -> Window | None:
    cache: Any = default_cache
    try:
        client = cache.client.get_client(write=True)
        hits, left_ms = client.eval(script, 1, cache.make_key(key), seconds * 1000)
    except redis.RedisError:  # down, skipped by its breaker, or refusing scripts: fail open
        if cache.logger is not None:  # logged as django-redis logs the cache's own outages
            cache.logger.exception("Exception ignored")
        return None
    return Window(int(hits), max(int(left_ms), 0) / 1000)


# Without Redis (the embedded default, tests) the cache is this process's memory, so a lock of
# this process makes the count atomic.
_local_lock = threading.Lock()


def _local_window(key: str, seconds: int, hits: int) -> Window:
    now = time.monotonic()
    with _local_lock:
        counted, ends_at = default_cache.get(key) or (0, now + seconds)
        if ends_at <= now:
            counted, ends_at = 0, now + seconds
        counted += hits
        if hits:
            default_cache.set(key, (counted, ends_at), timeout=max(ends_at - now, 1))
    return Window(counted, max(ends_at - now, 0.0) if counted else 0.0)


class CountedThrottle(SimpleRateThrottle):
    """A DRF throttle counted in an atomic window (count_hit) instead of a history list.

    The rate comes from DEFAULT_THROTTLE_RATES[scope]; "off" disables it (benchmarks, trusted
    mirrors). Reader pages use these classes too (curation/views/throttling.py), with a Django
    request, so the client is read from whichever request they are given.
    """

    # Not DRF's key: its history lists would stand in the way of INCR after an upgrade.
    cache_format = "throttle_%(scope)s_%(ident)s:count"
    window: Window | None = None

    def get_rate(self) -> str | None:
        """Return the scope's rate, or None when it is switched off."""
        rates = self.THROTTLE_RATES
        if self.scope not in rates:  # a scope added after the rates were overridden (tests)
            rates = api_settings.DEFAULT_THROTTLE_RATES
        rate = rates.get(self.scope) if self.scope else None
        return None if rate is None or rate.strip().lower() in _OFF else rate

    def get_ident(self, request: Request) -> str:
        """Return the client's address, trusting X-Forwarded-For only via NUM_PROXIES."""
        return client_address(getattr(request, "_request", request))

    def allow_request(self, request: Request, view: Any) -> bool:
        """Count the request; refuse it once the window holds more than the rate allows."""
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.window = count_hit(self.key, self.duration)
        return self.window is None or self.window.hits <= self.num_requests

    def wait(self) -> float | None:
        """Return the seconds until the window ends (the 429's Retry-After)."""
        return None if self.window is None else max(self.window.seconds_left, 1.0)


class AnonReadThrottle(CountedThrottle, AnonRateThrottle):
    """Limit anonymous clients per address (DEFAULT_THROTTLE_RATES["anon"])."""


class UserReadThrottle(CountedThrottle, UserRateThrottle):
    """Limit authenticated clients per user (DEFAULT_THROTTLE_RATES["user"]), a higher rate."""

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        """Leave anonymous clients to the anonymous throttle (one cache round trip, not two)."""
        if not request.user or not request.user.is_authenticated:
            return None
        return super().get_cache_key(request, view)


class IntegrityThrottle(CountedThrottle):
    """Limit the integrity page and its JSON (a finding per reference: the dearest read) per
    address, or per user for signed-in readers (DEFAULT_THROTTLE_RATES["integrity"])."""

    scope = "integrity"

    def get_cache_key(self, request: Request, view: Any) -> str:
        """Return the key of the user, or of the address for anonymous readers."""
        user = request.user
        ident = f"user:{user.pk}" if user and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class BadTokenThrottle(CountedThrottle):
    """Limit failed token authentications per address (DEFAULT_THROTTLE_RATES["bad_token"]).

    Not a throttle class of any view: api.authentication asks it before looking a token up and
    counts each token that was refused.
    """

    scope = "bad_token"

    def get_cache_key(self, request: Request, view: Any) -> str:
        """Return the key of the client's address."""
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def spent(self, request: Request) -> bool:
        """Return whether this address has used up its failures (without counting one)."""
        if self.rate is None:
            return False
        self.window = current_window(self.get_cache_key(request, None))
        return self.window is not None and self.window.hits >= self.num_requests

    def count_failure(self, request: Request) -> None:
        """Count a refused token against this address."""
        if self.rate is not None:
            self.window = count_hit(self.get_cache_key(request, None), self.duration)
