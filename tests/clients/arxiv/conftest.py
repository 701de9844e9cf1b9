"""Fixtures for code that talks to arXiv: `fake_arxiv`, reusable by any test package.

To use it outside tests/clients/arxiv, import it into that package's conftest.py:

    from tests.clients.arxiv.conftest import fake_arxiv  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from tests.clients.arxiv.fake_arxiv import FakeArxiv


@pytest.fixture
def fake_arxiv(httpserver: HTTPServer, settings: Any, tmp_path: Path) -> Iterator[FakeArxiv]:
    """Yield a fake arXiv, with the settings pointing every ArxivClient() at it.

    No wait between requests (ARXIV_REQUEST_INTERVAL=0), a fresh source store under tmp_path,
    offline mode off and a known contact for the User-Agent. `fake_arxiv.client()` returns a
    client whose waits (Retry-After, backoff) go to `fake_arxiv.clock` instead of sleeping.
    """
    settings.ARXIV_OAI_URL = httpserver.url_for("/oai")
    settings.ARXIV_EPRINT_URL = httpserver.url_for("/e-print")
    settings.ARXIV_REQUEST_INTERVAL = 0
    settings.ARXIV_CONTACT = "curators@example.org"
    settings.CITEREC_OFFLINE = False
    settings.CITEREC_SOURCE_STORE = tmp_path / "sources"
    yield FakeArxiv(httpserver)
