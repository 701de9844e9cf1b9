"""Curator screens in a real browser (issue 26, items 4-6 and 9): the work queue named once,
"show all" staying on the decided queue, one time format on every screen, people by name,
the admin index listing recent decisions, one change-log row per decision, and a notice
review that says "nothing changed" and answers a refusal with 409. Screenshots at 1,280 and
390 px go to artifacts/labels/."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from curation.notices.services import review_decide
from curation.permissions import NOTICE_REVIEWERS, ensure_groups
from tests.browser import login, page_width, shot
from tests.notices.conftest import FakeCrossref, crossref  # noqa: F401 - the fixture
from tests.notices.records import import_citing_record
from tests.notices.test_review import CONCERN, MICPRO, _refresh_micpro, _review

from .conftest import CITING, make_user
from .helpers import decide
from .test_labels import MINUTE

pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = (1280, 390)
FOLDER = "labels"


def shown_times(page: Any) -> list[str]:
    """Return the text of every <time> on the page, after checking each is in the one format."""
    texts = page.locator("time").all_inner_texts()
    assert texts, "no <time> on the page"
    assert all(MINUTE.fullmatch(t.strip()) for t in texts), texts
    return texts


def posted(page: Any, click: str) -> Any:
    """Click a submit button and return the response to the POST it sends."""
    with page.expect_response(lambda r: r.request.method == "POST") as info:
        page.click(click)
    return info.value


def test_curator_screens_share_names_times_and_people(
    live_server: Any, browser: Any, resolved: Any, alice: Any, bob: Any
) -> None:
    get_user_model().objects.filter(username="alice").update(first_name="Alice", last_name="Martin")
    seen = resolved[2].revision
    decide(alice, resolved[2], "link", identifier="2302.00003", reason="the checkpointing paper")
    decide(alice, resolved[1], "set_state", status="parse_uncertain", reason="author fragment")
    base = live_server.url
    for width in WIDTHS:
        page = login(browser, base, "alice", width=width, height=900)

        # The admin index: the work queue by its name, and the decisions just made.
        shot(page, f"01-index-{width}", FOLDER)
        decisions = page.locator("#recent-decisions li")
        assert decisions.count() == 2
        assert f"{CITING} [1]" in decisions.nth(0).inner_text()
        assert "Alice Martin" in decisions.nth(1).inner_text()
        assert page.locator("text=None available").count() == 0
        assert page.locator("#content-main a", has_text="Work queue").count() >= 1
        shown_times(page)

        # The decided queue, searched: "show all" clears the search and stays on the queue.
        page.goto(f"{base}/admin/curation/observation/?queue=decided&q=Silent")
        assert page.inner_text("#content h1") == "Work queue"
        # click returns once the new page commits, not once it is parsed: wait for the new URL
        # and let expect() retry the DOM checks until the new page's list is there (CI saw the
        # old DOM once with a bare count()).
        with page.expect_navigation(wait_until="load"):
            page.click("#cr-show-all")
        assert "queue=decided" in page.url and "q=" not in page.url
        selected = page.locator("#changelist-filter li.selected", has_text="decided by a curator")
        expect(selected).to_have_count(1)
        expect(page.locator("#result_list tbody tr")).to_have_count(2)
        assert page_width(page) <= width
        shot(page, f"02-decided-queue-{width}", FOLDER)

        # The history: headings and values in one format, people by name.
        page.goto(f"{base}/admin/curation/observation/{resolved[2].pk}/history/")
        assert len(shown_times(page)) >= 3
        assert page.locator(".cr-change h2", has_text="Alice Martin").count() == 1
        assert page.locator("text=user:alice >> visible=true").count() == 0  # raw JSON aside
        shot(page, f"03-history-{width}", FOLDER)

        # The change log: one row for the link (reference, resolution, notice and cited work).
        page.goto(f"{base}/admin/curation/observation/log/?user=alice")
        rows = page.locator("tr.cr-log-row")
        assert rows.count() == 2
        link_row = rows.filter(has_text="the checkpointing paper")
        assert link_row.count() == 1
        assert f"{CITING} [2] Checkpointing for fault tolerant deep learning" in link_row.inner_text()
        assert re.search(r"state\s+metadata_mismatch → verified_exact", link_row.inner_text())
        shown_times(page)
        shot(page, f"04-change-log-{width}", FOLDER)
        page.context.close()

    # Bob saves on the revision Alice changed: 409, and a banner naming her, in the one format.
    for width in WIDTHS:
        page = login(browser, base, "bob", width=width, height=900)
        page.goto(f"{base}/admin/curation/observation/{resolved[2].pk}/change/")
        page.evaluate(
            "rev => document.querySelectorAll('input[name=revision]').forEach(i => i.value = rev)",
            str(seen),
        )
        page.check("#cr-do-set_state")
        page.fill("#id_reason", "Bob: too late")
        response = posted(page, "#cr-save")
        assert response.status == 409
        banner = page.locator("#cr-stale").inner_text()
        # The last change is Alice's link or the notice check it queued: named either way.
        assert re.search(r"(Alice Martin|notice refresh \(task\)) at \d{4}-\d\d-\d\d \d\d:\d\d UTC", banner)
        assert "task:" not in banner and "user:" not in banner
        assert "Alice Martin" in page.locator(".cr-card", has_text="Recent changes").inner_text()
        shown_times(page)
        shot(page, f"05-conflict-banner-{width}", FOLDER)
        page.context.close()


def broken_words(page: Any, selector: str) -> list[str]:
    """Return the words inside `selector` that the layout split over two lines."""
    script = """sel => {
      const broken = [];
      for (const cell of document.querySelectorAll(sel)) {
        const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walk.nextNode(); node; node = walk.nextNode()) {
          for (const m of node.textContent.matchAll(/\\S+/g)) {
            const range = document.createRange();
            range.setStart(node, m.index);
            range.setEnd(node, m.index + m[0].length);
            if (range.getClientRects().length > 1) broken.push(m[0]);
          }
        }
      }
      return broken;
    }"""
    return list(page.evaluate(script, selector))


def test_a_notice_review_says_what_happened_in_words_and_status(
    live_server: Any,
    browser: Any,
    crossref: FakeCrossref,  # noqa: F811
) -> None:
    ensure_groups()
    rita, _ = make_user("rita", NOTICE_REVIEWERS), make_user("nora", NOTICE_REVIEWERS)
    get_user_model().objects.filter(pk=rita.pk).update(first_name="Rita", last_name="Okafor")
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)
    review = _review(CONCERN)
    base = live_server.url
    url = f"{base}/admin/notices/noticereview/{review.pk}/change/"
    for width in WIDTHS:
        page = login(browser, base, "nora", width=width, height=900)
        page.goto(f"{base}/admin/notices/noticereview/")
        assert page.inner_text("#content h1") == "Notices to review"
        shot(page, f"06-notices-to-review-{width}", FOLDER)

        page.goto(url)
        current = _review(CONCERN)
        # Rita decides while Nora reads: Nora's save is refused with 409 and the panel.
        from curation.audit import Actor
        from curation.states import ChangeSource

        review_decide(
            review_id=current.pk, decision="dismissed",
            note="Rita: the notice names another paper, doi:10.1016/j.micpro.2020.103211",
            expected_revision=current.revision, actor=Actor.for_user(rita, ChangeSource.ADMIN),
        )  # fmt: skip
        page.check("input[name=decision][value=confirmed]")
        page.fill("textarea[name=decision_note]", "Nora: it concerns this work")
        response = posted(page, "input[name=_save]")
        assert response.status == 409
        assert "Rita Okafor made it dismissed at " in page.locator("#review-conflict").inner_text()
        shot(page, f"07-review-refused-409-{width}", FOLDER)

        # Keeping the current decision saves nothing, and says so.
        page.check("input[name=on_conflict][value=current]")
        response = posted(page, "input[name=_save]")
        assert response.status == 302
        message = page.locator(".messagelist").inner_text()
        assert "Nothing changed" in message and "changed successfully" not in message
        assert _review(CONCERN).note.startswith("Rita:")

        # Decisions so far: times in the one format, people by name, whole words.
        history = page.locator("#review-history").inner_text()
        assert "Rita Okafor" in history and "user:rita" not in history
        shown_times(page)
        assert broken_words(page, "#review-history td") == []
        assert page_width(page) <= width
        shot(page, f"08-review-kept-current-{width}", FOLDER)
        page.context.close()
