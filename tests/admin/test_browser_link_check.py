"""The resolver measured by its curators in a real browser (issue 41 item 3), at 1,280 and
390 px: a curator draws a sample on the precision page, walks "Links to check" with the keys
(y confirms, j skips, o opens the reference), and reads the figures; axe-core finds no
violation on any of these pages. Screenshots go to artifacts/precision/."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from curation.resolution.models import LabelOutcome, LinkSampleItem, VerdictLabel
from curation.services.observations import observation_set_state
from curation.states import ResolutionStatus
from tests.browser import axe_violations, login, page_width, shot
from tests.resolution.verdicts_data import ALICE, verdict

pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = (1280, 390)
FOLDER = "precision"
PRECISION = "/admin/resolution/linksampleitem/precision/"
QUEUE = "/admin/resolution/linksampleitem/"


@pytest.fixture
def links() -> None:
    """Automatic links in two bands and by identifier; one came to curators and was wrong."""
    for i in range(3):
        verdict(i, probability=0.995, text=f"J. Smith. A long reference title number {i}. 2023.")
    for i in range(3):
        verdict(10 + i, probability=0.7)
    verdict(20, step="identifier", probability=None)
    came = verdict(30, probability=0.6)
    observation_set_state(observation=came, status=ResolutionStatus.UNRESOLVED,
                          expected_revision=came.revision, actor=ALICE, reason="not it")  # fmt: skip


def checked(page: Any, name: str, width: int) -> None:
    """Check the page with axe-core, its width, and keep a screenshot."""
    assert page_width(page) <= width, f"{name} scrolls sideways at {width} px"
    assert axe_violations(page) == []
    shot(page, f"{name}-{width}", FOLDER)


def test_a_curator_samples_checks_and_reads_the_precision(
    live_server: Any, browser: Any, alice: Any, links: None
) -> None:
    base = live_server.url
    for width in WIDTHS:
        page = login(browser, base, "alice", width=width, height=900)
        page.goto(f"{base}{PRECISION}")
        expect(page.locator("#cr-overall-queue")).to_contain_text("came to curators")
        checked(page, "01-precision-before", width)

        if width == WIDTHS[0]:
            page.fill("#id_per_band", "2")
            page.fill("#id_seed", "browser")
            with page.expect_navigation(wait_until="load"):
                page.click("#cr-draw input[type=submit]")
            assert page.url.endswith(QUEUE)
            expect(page.locator(".messagelist")).to_contain_text("Drew 5 links to check")
        else:
            page.goto(f"{base}{QUEUE}")
        checked(page, "02-links-to-check", width)

        with page.expect_navigation(wait_until="load"):
            page.click("#cr-start")
        first = page.url
        expect(page.locator("#cr-linked")).to_contain_text("arXiv:2301.00001")
        checked(page, "03-check-a-link", width)

        # y: confirmed, and on to the next link of the sample.
        with page.expect_navigation(wait_until="load"):
            page.keyboard.press("y")
        assert page.url != first
        expect(page.locator(".messagelist")).to_contain_text("Confirmed arXiv:2301.00001")
        checked(page, "04-after-confirm", width)

        # j skips (writes nothing); o opens the reference to overturn it there.
        labels = VerdictLabel.objects.count()
        skipped_from = page.url
        with page.expect_navigation(wait_until="load"):
            page.keyboard.press("j")
        assert page.url != skipped_from and VerdictLabel.objects.count() == labels
        with page.expect_navigation(wait_until="load"):
            page.keyboard.press("o")
        assert "/admin/curation/observation/" in page.url and page.url.endswith("/change/")
        page.context.close()

    assert VerdictLabel.objects.filter(why="sampled", outcome=LabelOutcome.CONFIRMED).count() == 2
    assert LinkSampleItem.objects.filter(checked_at__isnull=True).count() == 3

    for width in WIDTHS:
        page = login(browser, base, "alice", width=width, height=900)
        page.goto(f"{base}{PRECISION}")
        expect(page.locator("#cr-by-band")).to_contain_text("checked because sampled")
        expect(page.locator("#cr-strata")).to_contain_text("0.50–0.80")
        checked(page, "05-precision-after", width)
        page.context.close()
