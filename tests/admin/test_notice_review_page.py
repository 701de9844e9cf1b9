"""Nora opens a notice review in a real browser: the cited work's title and identifiers, the
event as fields with the notice DOI as a link, the citing papers affected and the decision,
under a title that names the event and the work; nothing hidden or wider than the window at
1,280 or 390 px. Screenshots go to artifacts/admin/notice-review-*.png."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from curation.permissions import NOTICE_REVIEWERS, ensure_groups
from tests.browser import login, page_width, shot
from tests.notices.conftest import FakeCrossref, crossref  # noqa: F401 - the fixture
from tests.notices.records import import_citing_record
from tests.notices.test_review import CONCERN, MICPRO, _refresh_micpro, _review

from .conftest import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_notice_review_reads_as_fields_with_links(
    live_server: Any,
    browser: Any,
    crossref: FakeCrossref,  # noqa: F811
) -> None:
    ensure_groups()
    make_user("nora", NOTICE_REVIEWERS)
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)
    review = _review(CONCERN)
    base = live_server.url
    widths: dict[str, dict[int, int]] = {}
    for width in (1280, 390):
        page = login(browser, base, "nora", width=width, height=900)
        page.goto(f"{base}/admin/notices/noticereview/")
        shot(page, f"notice-queue-{width}")
        widths.setdefault("notice-queue", {})[width] = page_width(page)
        assert page_width(page) <= width
        if width == 1280:  # every column of the queue is in view
            last = page.locator("#result_list thead th").last.bounding_box()
            shown = page.locator("#changelist .results").bounding_box()
            assert last is not None and shown is not None
            assert last["x"] + last["width"] <= shown["x"] + shown["width"] + 1, (last, shown)
        page.goto(f"{base}/admin/notices/noticereview/{review.pk}/change/")
        shot(page, f"notice-review-{width}")
        widths.setdefault("notice-review", {})[width] = page_width(page)
        assert page_width(page) <= width
        heading = page.inner_text("#content h1")
        assert heading.startswith("Expression of concern of “") or " of “" in heading, heading
        assert "review of" not in heading
        assert page.locator("#review-work-title").inner_text().strip()
        event = page.locator("#review-event")
        for label in ("type", "date", "source", "notice", "reasons"):
            assert event.locator(f"th:text-is('{label}')").count() == 1, label
        assert event.locator(f"a[href='https://doi.org/{CONCERN}']").count() == 1
        assert page.locator("#review-affected li").count() >= 1
        assert page.locator("input[name=decision]").count() == 2
        page.context.close()
    add_widths(widths)


def add_widths(widths: dict[str, dict[int, int]]) -> None:
    """Add these page widths to the bench's figures (bench/bench_curator_flow.py), if asked."""
    out = os.environ.get("CURATOR_FLOW_FIGURES")
    if not out or not Path(out).exists():
        return
    figures = json.loads(Path(out).read_text())
    figures["page_widths"].update(widths)
    Path(out).write_text(json.dumps(figures, indent=2))
