"""Shared helpers for the notice-source tests (no database)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def load_json() -> Any:
    """Return a loader for the JSON fixtures by file name."""

    def load(name: str) -> Any:
        return json.loads((FIXTURES / name).read_text(encoding="utf-8"))

    return load


# --- Django-side helpers (tests that use the database) --------------------------------------


def load_fixture(name: str) -> Any:
    """Return a JSON fixture by file name."""
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


class FakeCrossref:
    """Crossref as a pytest-httpserver speaking its JSON: register works and notice listings."""

    def __init__(self, server: Any) -> None:
        from curation.clients.crossref.client import CrossrefClient
        from curation.clients.crossref.throttle import LocalThrottle
        from curation.notices.sources import _NoCache

        self.server = server
        self.client = CrossrefClient(
            base_url=server.url_for("/"),
            mailto="",
            offline=False,
            max_retries=1,
            throttle=LocalThrottle(0),
            cache=_NoCache(),
            sleep=lambda seconds: None,
        )

    def work(self, doi: str, body: Any = None, status: int = 200) -> None:
        """Answer GET /works/{doi} with a fixture envelope, a 404 or an error status."""
        self.server.expect_request(f"/works/{doi.lower()}").respond_with_json(
            body if body is not None else {"status": "error"}, status=status
        )

    def notices(self, doi: str, body: Any = None, status: int = 200) -> None:
        """Answer GET /works?filter=updates:{doi} (an empty listing unless body is given)."""
        listing = body or {"status": "ok", "message-type": "work-list", "message": {"items": []}}
        self.server.expect_request(
            "/works", query_string={"filter": f"updates:{doi.lower()}", "rows": "100"}
        ).respond_with_json(listing, status=status)

    def paths(self) -> list[str]:
        """Return the request paths (with queries) Crossref received."""
        return [
            request.path + ("?" + request.query_string.decode() if request.query_string else "")
            for request, _ in self.server.log
        ]


@pytest.fixture
def crossref(httpserver: Any, monkeypatch: pytest.MonkeyPatch) -> FakeCrossref:
    """Return a local Crossref; every refresh in the test (tasks too) asks it."""
    fake = FakeCrossref(httpserver)
    monkeypatch.setattr("curation.notices.sources._client", fake.client)
    return fake
