"""The public record page in a real browser (Debian Chromium, headless), as a reader sees it.

Screenshots go to artifacts/records/ at 1,280 and 390 px; no page may be wider than its window.
"""

from __future__ import annotations

import copy
import io
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from curation.audit import Actor
from curation.services import record_import
from tests import records_factory as rf
from tests.conftest import SAMPLE_RECORD, missing_service

playwright_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "records"
WIDTHS = (1280, 390)
PAGE = "/paper/2412.14374/citation-record"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def chromium(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Return a headless Chromium (Playwright's sync API runs a loop in this thread)."""
    if not shutil.which(CHROMIUM):
        missing_service(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield browser
        browser.close()


def open_at(chromium: Any, url: str, width: int) -> Any:
    """Open url in a window of this width (phone-sized ones as a phone) and return the page."""
    phone = width < 600
    context = chromium.new_context(
        viewport={"width": width, "height": 844 if phone else 900},
        is_mobile=phone,
        device_scale_factor=1,
    )
    page = context.new_page()
    page.goto(url)
    return page


def overflow(page: Any) -> int:
    """Return by how many CSS pixels the page is wider than its window (0 when it fits).

    Measured against the window asked for, not window.innerWidth: a page without a viewport
    tag is laid out 980 px wide on a phone, and would otherwise pass.
    """
    width = page.viewport_size["width"]
    return int(
        page.evaluate(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth,"
            " window.innerWidth)"
        )
        - width
    )


def _with_notices() -> dict[str, Any]:
    """Return the sample with a retraction and a correction reported for two cited works."""
    document = copy.deepcopy(json.loads(SAMPLE_RECORD.read_text()))
    for index, kind, doi in ((2, "retraction", "10.1000/retraction"), (9, "correction", None)):
        notice = document["outbound"][index - 1]["standing_notice"]
        notice.pop("observation", None)
        notice["events"] = [
            {
                "date": "2025-03-14",
                "notice_doi": doi,
                "notice_url": None if doi else "https://example.org/notice",
                "reasons": ["Concerns about data"] if doi else [],
                "source": "crossref",
                "source_record_id": None,
                "type": kind,
            }
        ]
    return rf.reseal(document)


def test_the_record_page_reads_on_a_desktop_and_a_phone(live_server: Any, chromium: Any) -> None:
    call_command("import_records", str(SAMPLE_RECORD), stdout=io.StringIO())
    for width in WIDTHS:
        page = open_at(chromium, live_server.url + PAGE, width)
        page.screenshot(path=str(SHOTS / f"record-{width}.png"), full_page=True)
        assert overflow(page) <= 0, f"{overflow(page)} px wider than a {width} px window"
        summary = page.locator("section.summary")
        assert summary.is_visible() and "33 references" in summary.inner_text()
        assert page.locator("li.ref").count() == 33
        # The citing paper's title is the heading, not a line of every reference.
        title = "Scaling Deep Learning Training with MPMD Pipeline Parallelism"
        assert page.content().count(title) <= 3  # <title>, heading, nothing per reference
        first = page.locator("li.ref").first
        assert not first.locator("dl").is_visible()
        first.locator("summary").click()
        assert "Digest" in first.locator("dl").inner_text()
        if width == WIDTHS[-1]:
            page.screenshot(path=str(SHOTS / f"record-{width}-why-open.png"))
        text = page.locator("body").inner_text()
        assert "+00:00" not in text and ".657259" not in text, "machine timestamps for people"
        page.context.close()


def test_retracted_and_corrected_cited_works_lead_the_page(live_server: Any, chromium: Any) -> None:
    record_import(document=_with_notices(), actor=Actor.command("tests"), reason="page test")
    for width in WIDTHS:
        page = open_at(chromium, live_server.url + PAGE, width)
        page.screenshot(path=str(SHOTS / f"record-notices-{width}.png"), full_page=True)
        assert overflow(page) <= 0
        summary = page.locator("section.summary").inner_text()
        assert "Retracted or withdrawn cited works (1)" in summary
        assert "Corrected or flagged cited works (1)" in summary
        page.context.close()


def test_other_public_pages_fit_a_phone(live_server: Any, chromium: Any) -> None:
    call_command("import_records", str(SAMPLE_RECORD), stdout=io.StringIO())
    for path in ("/paper/2412.14374/integrity", "/paper/2412.14374", "/evidence", "/api/"):
        for width in WIDTHS:
            page = open_at(chromium, live_server.url + path, width)
            name = path.strip("/").replace("/", "-").replace(".", "_") or "root"
            page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
            assert overflow(page) <= 0, f"{path} at {width} px"
            page.context.close()
