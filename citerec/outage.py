"""Outage logging: a dependency that is down is reported once per interval, not per request."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable


class OncePerInterval(logging.Filter):
    """Pass the first record of each kind (logger, message) per interval; count the rest.

    django-redis logs every request that found the cache unreachable; with the cache down that is
    every request. The record that passes says how many were held back since the last one.
    """

    def __init__(self, seconds: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.seconds = float(seconds)
        self._clock = clock
        self._lock = threading.Lock()
        self._last: dict[tuple[str, str], float] = {}
        self._held: dict[tuple[str, str], int] = {}

    def reset(self) -> None:
        """Forget what was seen, so the next record of every kind passes (tests)."""
        with self._lock:
            self._last.clear()
            self._held.clear()

    def filter(self, record: logging.LogRecord) -> bool:
        """Return True for the first record of its kind in the interval, False for the others."""
        kind = (record.name, str(record.msg))
        now = self._clock()
        with self._lock:
            last = self._last.get(kind)
            if last is not None and now - last < self.seconds:
                self._held[kind] = self._held.get(kind, 0) + 1
                return False
            self._last[kind] = now
            held = self._held.pop(kind, 0)
        if held:
            record.msg = f"{record.msg} ({held} more like it in the last {self.seconds:g} s)"
        return True
