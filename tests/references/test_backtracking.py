"""Author-list patterns must not backtrack exponentially on hostile repetitions.

Ambiguous optional whitespace in the separators once made "A, B., " * 22 + "A, B" (158
characters) take 9 s, doubling with each repetition. The guard below is an alarm for a hang
(the old patterns would need years for 60 repetitions), not a timing assertion.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from curation.references import parse_reference


@pytest.fixture
def hang_alarm() -> Iterator[None]:
    def _hung(signum: int, frame: object) -> None:
        raise TimeoutError("parse did not finish: catastrophic backtracking")

    previous = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(
    "text",
    [
        "A, B., " * 60 + "A, B",
        "Smith, J. - " * 60 + "x",
        "J. - " * 60 + "Smith",
        "Smith, J., and " * 60 + "x",
    ],
)
def test_repeated_author_fragments_parse_in_bounded_time(hang_alarm: None, text: str) -> None:
    parsed = parse_reference(text)
    assert parsed.raw == text
    assert parsed.year is None
