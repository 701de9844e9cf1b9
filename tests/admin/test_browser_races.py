"""Two curators on one reference in real browsers (Debian's Chromium): Alice corrects the title,
Bob changes only the year on the page he opened before. Bob's save is refused; saving again
never reverts Alice's title unless Bob explicitly chooses to apply his values, and each choice
does what it says. Screenshots go to artifacts/admin/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser import login, shot

from .helpers import fresh, last_context

pytestmark = pytest.mark.django_db(transaction=True)


def _open_both(live_server: Any, browser: Any, observation: Any) -> tuple[Any, Any, str]:
    base = live_server.url
    url = f"{base}/admin/curation/observation/{observation.pk}/change/"
    alice, bob = login(browser, base, "alice"), login(browser, base, "bob")
    alice.goto(url)
    bob.goto(url)
    return alice, bob, url


def _alice_corrects(alice: Any, field: str, value: str) -> None:
    alice.check("#cr-do-correct")
    alice.fill(f"#id_correct_{field}", value)
    alice.fill("#id_reason", f"Alice: {field}")
    alice.click("#cr-save")
    assert alice.locator(".messagelist .success").count() == 1


def _bob_changes_the_year_on_his_stale_page(bob: Any) -> None:
    bob.check("#cr-do-correct")
    bob.fill("#id_correct_work_year", "1999")
    bob.fill("#id_reason", "Bob: the year is 1999")
    bob.click("#cr-save")
    assert bob.locator("#cr-stale").count() == 1
    assert "Alice: work_title" in bob.locator("#cr-stale").inner_text()


def _refused(live_server: Any, browser: Any, observation: Any) -> Any:
    """Play the race up to Bob's refused save; return Bob's page."""
    first, second, _ = _open_both(live_server, browser, observation)
    _alice_corrects(first, "work_title", "Corrected by Alice")
    _bob_changes_the_year_on_his_stale_page(second)
    return second


def test_saving_again_after_a_refusal_keeps_alices_title_until_bob_chooses(
    live_server: Any, browser: Any, resolved: Any, alice: Any, bob: Any
) -> None:
    observation = resolved[1]
    second = _refused(live_server, browser, observation)

    # Bob sees his values beside the current ones.
    panel = second.locator("#cr-conflict")
    assert "Corrected by Alice" in panel.locator(".cr-current").all_inner_texts()
    assert "1999" in panel.locator(".cr-yours").all_inner_texts()
    shot(second, "10-conflict-yours-beside-current")

    # Saving the panel needs a choice: the browser refuses, and so does the server.
    second.click("#cr-conflict button")
    assert second.locator("#cr-conflict").count() == 1
    second.eval_on_selector_all("#cr-conflict input[type=radio]", "els => els.forEach(e => e.required = false)")
    second.click("#cr-conflict button")
    assert "Choose: apply your values or keep the current ones." in second.locator("#cr-conflict").inner_text()
    after = fresh(observation)
    assert (after.work_title, after.work_year) == ("Corrected by Alice", 2023)

    # "Keep current" discards Bob's values.
    second.check("#cr-choice-current")
    second.click("#cr-conflict button")
    assert "Kept the current version" in second.locator(".messagelist").inner_text()
    after = fresh(observation)
    assert (after.work_title, after.work_year) == ("Corrected by Alice", 2023)
    assert last_context(observation)["reason"] == "Alice: work_title"
    shot(second, "11-kept-current")


def test_pressing_the_ordinary_save_again_after_a_refusal_saves_nothing_of_bobs(
    live_server: Any, browser: Any, resolved: Any, alice: Any, bob: Any
) -> None:
    observation = resolved[1]
    second = _refused(live_server, browser, observation)

    # The ordinary form now holds the current values, on the current revision.
    assert second.input_value("#id_correct_work_title") == "Corrected by Alice"
    assert second.input_value("#id_correct_work_year") == "2023"
    assert second.is_checked("#cr-do-correct")
    second.fill("#id_reason", "Bob presses save again")
    second.click("#cr-save")

    assert "Nothing to correct" in second.locator(".messagelist").inner_text()
    after = fresh(observation)
    assert (after.work_title, after.work_year) == ("Corrected by Alice", 2023)


def test_apply_mine_after_a_refusal_applies_the_values_shown_as_bobs(
    live_server: Any, browser: Any, resolved: Any, alice: Any, bob: Any
) -> None:
    observation = resolved[1]
    title_bob_saw = fresh(observation).work_title
    second = _refused(live_server, browser, observation)
    yours = second.locator("#cr-conflict .cr-yours").all_inner_texts()
    assert title_bob_saw in yours and "1999" in yours

    second.check("#cr-choice-mine")
    second.click("#cr-conflict button")

    assert second.locator(".messagelist .success").count() == 1
    after = fresh(observation)
    assert (after.work_title, after.work_year) == (title_bob_saw, 1999)  # exactly "yours"
    assert last_context(observation)["reason"] == "Bob: the year is 1999"
    shot(second, "12-applied-mine")
