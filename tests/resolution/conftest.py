"""Resolution tests run offline: the Crossref API is never asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.workers import broker  # noqa: F401 - the real-broker fixture of the worker tests

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def offline(settings: pytest.FixtureRequest) -> None:
    settings.CITEREC_OFFLINE = True  # type: ignore[attr-defined]


# A work the local catalogue lacks and the (fake) Crossref API knows.
WIDGET_WORK = {"DOI": "10.5555/widget.1", "title": ["Widgets at Scale"], "type": "journal-article",
               "author": [{"family": "Okafor"}], "issued": {"date-parts": [[2018]]}}  # fmt: skip
WIDGET_REFERENCE = "Okafor, A. Widgets at scale. J. Widgets, 2018. doi:10.5555/widget.1"


@pytest.fixture
def crossref_knows_widget(settings, httpserver, monkeypatch):  # type: ignore[no-untyped-def]
    """Go online with a fake Crossref API that answers for WIDGET_WORK's DOI only."""
    from curation.clients.crossref.cache import MemoryCache
    from curation.clients.crossref.client import CrossrefClient
    from curation.clients.crossref.throttle import LocalThrottle
    from curation.resolution.resolver import lookups

    settings.CITEREC_OFFLINE = False
    httpserver.expect_request("/works/10.5555/widget.1").respond_with_json(
        {"status": "ok", "message": WIDGET_WORK}
    )
    client = CrossrefClient(base_url=httpserver.url_for("/"), offline=False, cache=MemoryCache(),
                            throttle=LocalThrottle(1000))  # fmt: skip
    monkeypatch.setattr(lookups, "get_client", lambda: client)
    return WIDGET_WORK
