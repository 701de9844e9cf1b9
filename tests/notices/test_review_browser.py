"""Two notice reviewers in real browsers (Debian's Chromium, headless) decide the same review
from the same page: the second is refused, sees the first one's decision and note beside their
own, cannot save again without choosing, and the history keeps both. Screenshots go to
artifacts/notices/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from curation.notices.models import NoticeReview
from curation.permissions import NOTICE_REVIEWERS, ensure_groups
from tests.admin.conftest import make_user
from tests.browser import login

from .conftest import FakeCrossref
from .records import import_citing_record
from .test_review import CONCERN, MICPRO, _refresh_micpro, _review

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "notices"

pytestmark = pytest.mark.django_db(transaction=True)


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def decide(page: Any, decision: str, note: str) -> None:
    page.check(f"input[name=decision][value={decision}]")
    page.fill("#id_decision_note", note)
    save(page)


def save(page: Any) -> None:
    """Press Save and wait for the answer (refused: the form again; saved: the queue)."""
    with page.expect_navigation():
        page.click("input[name=_save]")


def test_two_reviewers_the_second_sees_the_first_and_must_choose(
    live_server: Any, browser: Any, crossref: FakeCrossref
) -> None:
    ensure_groups()
    make_user("rita", NOTICE_REVIEWERS)
    make_user("nora", NOTICE_REVIEWERS)
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)
    review: NoticeReview = _review(CONCERN)
    base = live_server.url
    url = f"{base}/admin/notices/noticereview/{review.pk}/change/"
    rita, nora = login(browser, base, "rita"), login(browser, base, "nora")
    rita.goto(url)
    nora.goto(url)

    decide(rita, "dismissed", "Rita: the notice names another paper")
    assert (_review(CONCERN).status, _review(CONCERN).note) == (
        "dismissed",
        "Rita: the notice names another paper",
    )
    decide(nora, "confirmed", "Nora: it concerns this work")

    conflict = nora.locator("#review-conflict")
    assert conflict.count() == 1
    text = conflict.inner_text()
    assert "rita made it" in text and "Rita: the notice names another paper" in text
    assert "Nora: it concerns this work" in text
    assert nora.locator("input[name=on_conflict]").count() == 2
    shot(nora, "01-second-reviewer-refused")

    save(nora)  # again, without choosing: refused again
    assert nora.locator("#review-conflict").count() == 1
    assert _review(CONCERN).note == "Rita: the notice names another paper"
    shot(nora, "02-save-again-without-a-choice")

    nora.check("input[name=on_conflict][value=mine]")
    save(nora)
    stored = _review(CONCERN)
    assert (stored.status, stored.note) == ("confirmed", "Nora: it concerns this work")

    rita.goto(url)
    history = rita.locator("#review-history").inner_text()
    assert "Rita: the notice names another paper" in history
    assert "Nora: it concerns this work" in history
    assert "\trita\t" in history and "\tnora\t" in history  # by name
    shot(rita, "03-history-keeps-both-decisions")
