"""The circuit breaker's rules, on a clock of the test's own: open after a failure, skip during
the cool-off, one probe after it (never two at once), closed by a probe that answers."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from citerec.outage import CircuitBreaker, OncePerInterval


class Dependency:
    """A dependency whose probe answers or fails as the test says; probes run when asked."""

    def __init__(self) -> None:
        self.down = True
        self.probes_started: list[Callable[[], None]] = []

    def probe(self) -> None:
        if self.down:
            raise TimeoutError("still hung")

    def start(self, probe: Callable[[], None]) -> None:
        self.probes_started.append(probe)


def _breaker(dependency: Dependency, now: list[float], cool_off: float = 10) -> CircuitBreaker:
    return CircuitBreaker(
        "test Redis",
        cool_off=cool_off,
        probe=dependency.probe,
        clock=lambda: now[0],
        start=dependency.start,
    )


def test_a_failure_opens_it_and_a_probe_after_the_cool_off_closes_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    circuit_log = logging.getLogger("citerec.cache.circuit")
    for once in circuit_log.filters:  # its once-a-minute filter starts afresh
        if isinstance(once, OncePerInterval):
            once.reset()
    caplog.set_level(logging.WARNING, logger=circuit_log.name)
    now, dependency = [0.0], Dependency()
    breaker = _breaker(dependency, now)
    assert breaker.allows()

    breaker.failed(TimeoutError("hung"))
    breaker.failed(TimeoutError("hung"))  # a call that was under way when it opened
    assert not any(breaker.allows() for _ in range(100))
    assert dependency.probes_started == []  # still cooling off

    now[0] = 10.5
    assert not breaker.allows() and not breaker.allows()
    assert len(dependency.probes_started) == 1  # one probe, however many callers
    dependency.probes_started.pop()()  # the probe finds it still down: another cool-off
    now[0] = 15.0
    assert not breaker.allows() and dependency.probes_started == []
    now[0] = 21.0
    assert not breaker.allows()
    dependency.down = False
    dependency.probes_started.pop()()

    assert breaker.allows() and not breaker.is_open
    assert breaker.failure is None
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "test Redis failed (TimeoutError): skipped for 10 s, then probed in the background",
        "test Redis answered a probe: used again",
    ]


def test_a_cool_off_of_zero_turns_it_off() -> None:
    breaker = _breaker(Dependency(), [0.0], cool_off=0)

    breaker.failed(TimeoutError("hung"))

    assert breaker.allows()
