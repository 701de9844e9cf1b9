"""Real-browser helpers shared by every Playwright test (Debian's Chromium, headless).

Use the `browser` fixture (tests/conftest.py) and these functions; screenshots go to
artifacts/<folder>/ (git-ignored), written by the tests so a person can look at the screens."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
# The password every test user gets (tests/admin/conftest.py make_user).
PASSWORD = "pw-Xk2!long-enough"


def launch(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Yield a headless Chromium; a missing browser fails (or skips) as a missing service."""
    from tests.conftest import missing_service

    playwright_api = pytest.importorskip("playwright.sync_api")
    if not shutil.which(CHROMIUM):
        missing_service(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    # Playwright's sync API runs an event loop in this thread; the ORM calls of the test
    # itself are still plain synchronous calls.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield launched
        launched.close()


def new_page(browser: Any, width: int = 1400, height: int = 1000) -> Any:
    """Return a page in a fresh context (its own cookies) at this window size."""
    return browser.new_context(viewport={"width": width, "height": height}).new_page()


def login(browser: Any, base: str, username: str, width: int = 1400, height: int = 1000) -> Any:
    """Return a page logged in to the admin as this user."""
    page = new_page(browser, width, height)
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/admin/")
    return page


def shot(page: Any, name: str, folder: str = "admin") -> None:
    """Save a full-page screenshot as artifacts/<folder>/<name>.png."""
    target = ARTIFACTS / folder
    target.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target / f"{name}.png"), full_page=True)


def page_width(page: Any) -> int:
    """Return how wide the rendered page is (wider than the window means a sideways scroll)."""
    return int(page.evaluate("document.documentElement.scrollWidth"))


def axe_violations(page: Any) -> list[str]:
    """Run axe-core on the page as it stands; return its violations, one line each (rule,
    impact, how many elements, the first element's selector): an empty list is a pass.

    axe-core comes inside the axe-playwright-python wheel (no download at test time). It is
    evaluated through the DevTools protocol, as a test's own script: a script tag would be
    refused by the page's Content Security Policy (script-src 'self'), as it should be.
    """
    axe = pytest.importorskip("axe_playwright_python")
    page.evaluate((Path(axe.__file__).parent / "axe.min.js").read_text(encoding="utf-8"))
    result = page.evaluate("async () => await axe.run(document)")
    return [
        f"{v['id']} ({v['impact']}, {len(v['nodes'])}x): {v['help']} at {v['nodes'][0]['target']}"
        for v in result["violations"]
    ]
