"""Outages: a dependency that is down is skipped (CircuitBreaker) and reported once per interval."""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any


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
        self._last: dict[Any, float] = {}
        self._held: dict[Any, int] = {}

    def reset(self) -> None:
        """Forget what was seen, so the next record of every kind passes (tests)."""
        with self._lock:
            self._last.clear()
            self._held.clear()

    _MOST_KINDS = 10_000  # past this many kinds, forget those quiet for an interval

    def filter(self, record: logging.LogRecord) -> bool:
        """Return True for the first record of its kind in the interval, False for the others."""
        held = self.admit((record.name, str(record.msg)))
        if held:
            record.msg = f"{record.msg} ({held} more like it in the last {self.seconds:g} s)"
        return held is not None

    def admit(self, kind: Any) -> int | None:
        """Return None if a record of this kind passed less than an interval ago (it is
        counted), else how many were held back since the last one passed."""
        now = self._clock()
        with self._lock:
            last = self._last.get(kind)
            if last is not None and now - last < self.seconds:
                self._held[kind] = self._held.get(kind, 0) + 1
                return None
            if len(self._last) >= self._MOST_KINDS:
                self._forget_quiet(now)
            self._last[kind] = now
            return self._held.pop(kind, 0)

    def _forget_quiet(self, now: float) -> None:
        for kind in [k for k, at in self._last.items() if now - at >= self.seconds]:
            del self._last[kind]
            self._held.pop(kind, None)


class CircuitBreaker:
    """Skip a dependency for a cool-off after it fails; a probe in the background finds it back.

    A hung server (a network blackhole, a paused process) makes every call wait its full timeout,
    and a request makes several cache calls: seconds per request. After one failure the breaker
    opens and callers skip the dependency at once (for the cache: a miss, a dropped write, a
    throttle that lets the request through). When the cool-off has passed, the next caller
    starts one probe in a background thread and goes on without waiting for it: the probe's
    success closes the breaker, its failure opens it for another cool-off. A cool-off of 0
    turns the breaker off (every call tries, as without one).

    The state is per process: each web or worker process learns of an outage from its own first
    failed call (no shared store can say that the shared store is down). A child process
    (a forked worker) starts closed.
    """

    def __init__(
        self,
        name: str,
        *,
        cool_off: float,
        probe: Callable[[], object],
        clock: Callable[[], float] = time.monotonic,
        start: Callable[[Callable[[], None]], object] | None = None,
    ) -> None:
        self.name = name
        self.cool_off = float(cool_off)
        self._probe = probe
        self._clock = clock
        self._start = start or _in_background
        self._lock = threading.Lock()
        self._open_until: float | None = None
        self._probing = False
        self.failure: str | None = None  # the class name of the error that opened it
        self.failures = self.skipped = self.probes = 0
        _BREAKERS.add(self)

    @property
    def is_open(self) -> bool:
        """Return whether calls are being skipped."""
        return self._open_until is not None

    def allows(self) -> bool:
        """Return whether to call the dependency now; while open, start the probe when due."""
        if self._open_until is None:  # the common case, without taking the lock
            return True
        with self._lock:
            if self._open_until is None:
                return True
            self.skipped += 1
            if self._probing or self._clock() < self._open_until:
                return False
            self._probing = True
            self.probes += 1
        self._start(self._run_probe)
        return False

    def failed(self, error: BaseException) -> None:
        """Open the breaker (or extend its cool-off) after a call failed with error."""
        if self.cool_off <= 0:
            return
        with self._lock:
            opening = self._open_until is None
            self._open_until = self._clock() + self.cool_off
            self.failure = type(error).__name__
            self.failures += 1
        if opening:
            _circuit_log.warning(
                "%s failed (%s): skipped for %g s, then probed in the background",
                self.name, self.failure, self.cool_off,
            )  # fmt: skip

    def reset(self) -> None:
        """Close the breaker and forget its counts (tests, a forked child)."""
        self._lock = threading.Lock()
        self._open_until = None
        self._probing = False
        self.failure = None
        self.failures = self.skipped = self.probes = 0

    def _run_probe(self) -> None:
        try:
            self._probe()
        except Exception as error:  # noqa: BLE001 — any failure means "still down"
            with self._lock:
                self._probing = False
                self._open_until = self._clock() + self.cool_off
                self.failure = type(error).__name__
            return
        with self._lock:
            self._probing = False
            self._open_until = None
            self.failure = None
        _circuit_log.warning("%s answered a probe: used again", self.name)


_circuit_log = logging.getLogger("citerec.cache.circuit")
_BREAKERS: weakref.WeakSet[CircuitBreaker] = weakref.WeakSet()


def _in_background(probe: Callable[[], None]) -> None:
    threading.Thread(target=probe, name="circuit-probe", daemon=True).start()


def _reset_after_fork() -> None:
    # A lock held by another thread at fork time would stay held in the child for ever, and the
    # child's own calls tell it soon enough whether the dependency answers.
    for breaker in list(_BREAKERS):
        breaker.reset()


os.register_at_fork(after_in_child=_reset_after_fork)
