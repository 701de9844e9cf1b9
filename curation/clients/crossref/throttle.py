"""One request rate per source, shared by every worker through Redis (in-process without it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

# Reserve the next free slot atomically: every caller gets its own start time, spaced by the
# interval, and a Retry-After pushes the next slot for everyone.
_RESERVE = """
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(now, nxt)
redis.call('SET', KEYS[1], tostring(slot + interval), 'PX', 60000 + math.ceil(interval * 1000))
return tostring(slot)
"""
_BLOCK = """
local until_ = tonumber(ARGV[1])
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
if until_ > nxt then
  redis.call('SET', KEYS[1], tostring(until_), 'PX', math.ceil((until_ - tonumber(ARGV[2])) * 1000) + 60000)
end
return 1
"""


class Throttle(Protocol):
    """Spaces requests to one source."""

    def wait(self) -> None:
        """Block until this caller may send its request."""

    def block(self, seconds: float) -> None:
        """Let nobody send for the given time (the source said Retry-After)."""


class LocalThrottle:
    """A throttle for one process (used when no Redis is configured)."""

    def __init__(
        self,
        rate_per_second: float,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.interval = 1.0 / rate_per_second if rate_per_second > 0 else 0.0
        self._next = 0.0
        self._lock = threading.Lock()
        self._clock, self._sleep = clock, sleep

    def wait(self) -> None:
        """Block until this caller may send its request."""
        with self._lock:
            now = self._clock()
            slot = max(now, self._next)
            self._next = slot + self.interval
        if slot > now:
            self._sleep(slot - now)

    def block(self, seconds: float) -> None:
        """Let nobody send for the given time."""
        with self._lock:
            self._next = max(self._next, self._clock() + seconds)


class RedisThrottle:
    """A throttle shared by all processes that use the same Redis key."""

    def __init__(
        self,
        redis_client: Any,
        key: str,
        rate_per_second: float,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.interval = 1.0 / rate_per_second if rate_per_second > 0 else 0.0
        self.key = key
        self._redis = redis_client
        self._reserve = redis_client.register_script(_RESERVE)
        self._block = redis_client.register_script(_BLOCK)
        self._clock, self._sleep = clock, sleep

    def wait(self) -> None:
        """Block until this caller may send its request."""
        now = self._clock()
        slot = float(self._reserve(keys=[self.key], args=[repr(now), repr(self.interval)]))
        if slot > now:
            self._sleep(slot - now)

    def block(self, seconds: float) -> None:
        """Let nobody send for the given time."""
        now = self._clock()
        self._block(keys=[self.key], args=[repr(now + seconds), repr(now)])


def redis_from_settings() -> Any | None:
    """Return a client of the deployment's Redis (REDIS_URL), or None when there is none."""
    from django.conf import settings

    url = getattr(settings, "REDIS_URL", "")
    if not url:
        return None
    import redis  # imported lazily: offline tests and the embedded mode never need it

    return redis.Redis.from_url(url)
