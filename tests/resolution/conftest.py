"""Resolution tests run offline: the Crossref API is never asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.workers import broker  # noqa: F401 - the real-broker fixture of the worker tests

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def offline(settings: pytest.FixtureRequest) -> None:
    settings.CITEREC_OFFLINE = True  # type: ignore[attr-defined]
