"""A curator's day in a real browser (Debian's Chromium, headless): fix an unresolved
reference by accepting a candidate, fix a mismatch by linking an arXiv id, revert it, and
check the history and the record page. Screenshots go to artifacts/admin/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser import login, shot

from .conftest import CITING
from .helpers import page_url

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_curator_fixes_references_reverts_and_checks_history(live_server: Any, browser: Any, resolved: Any, alice: Any) -> None:
    base = live_server.url
    page = login(browser, base, "alice")

    page.goto(f"{base}/admin/curation/observation/")
    shot(page, "01-work-queue")
    assert page.locator("#result_list tbody tr").count() == 4

    # An unresolved reference with two equally good candidates: accept the second.
    page.click("text=[1]")
    shot(page, "02-unresolved-reference")
    page.fill("#id_reason", "Same authors; the v2 paper is the one cited")
    with page.expect_navigation():
        page.click("button[value='arXiv:2301.00002']")  # saves and moves on to the next
    assert str(resolved[1].pk) not in page.url
    page.goto(base + page_url(resolved[1]))
    assert page.locator("#cr-status").inner_text() == "verified_exact"
    assert "2301.00002" in page.locator("#cr-linked").inner_text()
    shot(page, "03-candidate-accepted")

    # A mismatch: link the arXiv id of the paper the title names.
    page.goto(f"{base}/admin/curation/observation/?queue=live")
    page.click("text=[2]")
    page.check("#cr-do-link")
    page.fill("#id_link_identifier", "arXiv:2302.00003")
    page.fill("#id_reason", "The title is the checkpointing paper")
    page.click("#cr-save")
    assert page.locator("#cr-status").inner_text() == "verified_exact"
    shot(page, "04-mismatch-linked")

    # Revert the link from the history screen.
    page.click(".cr-links >> text=History")
    shot(page, "05-history")
    # Back to the resolver's version (after the link, a notice check of the newly linked work
    # may have added its own entry on top).
    revert = page.locator(".cr-change", has_text="test resolve").locator("form.cr-revert")
    revert.locator("input[name=reason]").fill("Linked too fast: the id in the reference stands")
    revert.locator("button").click()
    assert page.locator("#cr-status").inner_text() == "metadata_mismatch"
    page.goto(f"{base}/admin/curation/observation/{resolved[2].pk}/history/")
    assert page.locator("text=Linked too fast").count() >= 1
    assert page.locator(".cr-change h2", has_text="— alice").count() >= 2  # the link and the revert
    shot(page, "06-history-after-revert")

    page.goto(f"{base}/admin/curation/observation/log/?user=user:alice")
    assert page.locator("text=The title is the checkpointing paper").count() >= 1
    shot(page, "07-change-log")

    page.goto(f"{base}/paper/{CITING}/citation-record")
    body = page.content()
    assert "2301.00002" in body
    shot(page, "08-record-page")


def test_two_browser_sessions_cannot_lose_an_update(live_server: Any, browser: Any, resolved: Any, alice: Any, bob: Any) -> None:
    base = live_server.url
    url = f"{base}/admin/curation/observation/{resolved[1].pk}/change/"
    first, second = login(browser, base, "alice"), login(browser, base, "bob")
    first.goto(url)
    second.goto(url)
    first.check("#cr-do-set_state")
    first.select_option("#id_set_state_status", "parse_uncertain")
    first.fill("#id_reason", "Alice: this is an author fragment")
    first.click("#cr-save")
    second.fill("#id_reason", "Bob: the first candidate")
    second.click("button[value='arXiv:2301.00001']")
    assert second.locator("#cr-stale").count() == 1
    assert "Alice: this is an author fragment" in second.locator("#cr-stale").inner_text()
    assert second.locator("#cr-status").inner_text() == "parse_uncertain"
    shot(second, "09-stale-save-refused")
