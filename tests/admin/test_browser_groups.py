"""The group queue in a real browser at 1,280 and 390 px (issue 41): the curator opens the
largest group, decides it once for every member, sees the queue move on and undoes it; axe-core
finds no violation on any of these screens. Screenshots go to artifacts/groups/.

With CURATOR_FLOW_FIGURES set (bench/bench_curator_flow.py), the figures of the group flow
are added to that file: decisions made and citations they settled.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from curation.models import Observation, Paper, ReferenceGroup
from tests.browser import axe_violations, login, page_width, shot
from tests.services.test_reference_groups import JUNK, SILENT, SILENT_OTHER, cite

pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = (1280, 390)
FOLDER = "groups"
CITING = ("2501.00001", "2501.00002", "2501.00003", "2501.00004")


def no_violations(page: Any, where: str) -> None:
    found = axe_violations(page)
    assert found == [], f"{where}: {found}"


def citing_papers() -> None:
    now = timezone.now()
    Paper.objects.create(
        arxiv_id="2301.00001", title="Silent data corruption in large training runs",
        first_author="smith", year=2023, in_catalogue=True, submitted_at=now,
    )  # fmt: skip
    for n, arxiv_id in enumerate(CITING):
        cite(arxiv_id, SILENT if n % 2 else SILENT_OTHER, JUNK if n < 2 else f"other work {n}")


def add_figures(figures: dict[str, Any], widths: dict[str, dict[str, int]]) -> None:
    """Add the group flow's figures and page widths to the bench's figures file, when the
    bench asks (the curator flow scenario wrote it first)."""
    target = os.environ.get("CURATOR_FLOW_FIGURES")
    if not target or not Path(target).exists():
        return
    known = json.loads(Path(target).read_text())
    known.setdefault("page_widths", {}).update(widths)
    Path(target).write_text(json.dumps({**known, **figures}, indent=2))


def test_one_decision_for_a_group_then_undo_at_both_widths(
    live_server: Any, browser: Any, alice: Any
) -> None:
    citing_papers()
    base = live_server.url
    decisions = settled = 0
    widths: dict[str, dict[str, int]] = {"group queue": {}, "group page": {}}
    for width in WIDTHS:
        page = login(browser, base, "alice", width=width, height=900)
        page.goto(f"{base}/admin/curation/referencegroup/")
        assert page.inner_text("#content h1") == "Groups to decide"
        rows = page.locator("tr.cr-group-row")
        assert rows.count() == 2
        assert rows.nth(0).locator("td").nth(2).inner_text() == "4"  # citations to fix
        widths["group queue"][str(width)] = page_width(page)
        assert page_width(page) <= width
        no_violations(page, f"group queue at {width}")
        shot(page, f"01-group-queue-{width}", FOLDER)

        with page.expect_navigation():
            rows.nth(0).locator("a").click()
        assert page.locator("tr.cr-member").count() == 4
        widths["group page"][str(width)] = page_width(page)
        assert page_width(page) <= width
        no_violations(page, f"group page at {width}")
        shot(page, f"02-group-page-{width}", FOLDER)

        page.check("input[name=decision][value=link]")
        page.fill("input[name=identifier]", "arXiv:2301.00001")
        page.fill("input[name=reason]", "the SC paper, every spelling")
        with page.expect_navigation():
            page.click("#cr-group-save")
        decisions += 1
        members = Observation.objects.filter(raw_text__in=[SILENT, SILENT_OTHER])
        assert all(o.pinned and o.cited_paper_id for o in members)
        settled += members.count()
        assert "Decided 4 references of the group at once." in page.inner_text(".messagelist")
        assert page.locator("tr.cr-group-row").count() == 1  # on to the next group
        no_violations(page, f"queue after a decision at {width}")
        shot(page, f"03-decided-{width}", FOLDER)

        group = ReferenceGroup.objects.get(decision__isnull=False)
        with page.expect_navigation():
            page.click(f".messagelist #cr-group-undo-{group.pk}")
        assert "Undid the group decision on 4 references." in page.inner_text(".messagelist")
        assert not Observation.objects.filter(pinned=True).exists()
        assert page_width(page) <= width
        no_violations(page, f"group page after undo at {width}")
        shot(page, f"04-undone-{width}", FOLDER)
        page.context.close()
    add_figures({"group_decisions": decisions, "group_citations_settled": settled}, widths)
