"""Alice works a queue of 50 references in a real browser (Debian's Chromium, headless), by
keyboard and save-and-next, without going back to the list; every outcome is checked in the
database and in the history. Screens at 1,280 and 390 px go to artifacts/admin/flow-*.png and
none may be wider than its window. bench/bench_curator_flow.py prints the figures."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from curation.admin.history import observation_changes
from curation.models import Observation
from curation.selectors import WORK_QUEUES
from tests.browser import login, page_width, shot

from .curator_flow import FLOW_CITING, REASONS, Planned, seed_flow, work_the_queue

pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = (1280, 390)


def _check(observation: Observation, planned: Planned) -> None:
    """Assert the stored outcome of one planned decision, and its history context."""
    o = Observation.objects.select_related("resolution", "cited_paper").get(pk=observation.pk)
    where = f"[{planned.index}] {planned.kind}"
    assert o.pinned, where
    if planned.kind == "norecord":
        assert o.no_canonical_record, where
    elif planned.kind == "fragment":
        assert o.resolution.status == "parse_uncertain" and o.cited_paper is None, where
    else:
        assert o.resolution.status == "verified_exact", where
        assert o.cited_paper is not None and o.cited_paper.arxiv_id == planned.target, where
    # The history names the decision: Alice's, from the admin, with the reason she gave (a
    # notice check of a newly linked work may come after it).
    mine = [c for c in observation_changes(o.pk) if c.actor == "user:alice"]
    assert len(mine) == 1, where
    assert (mine[0].metadata["source"], mine[0].metadata["reason"]) == ("admin", REASONS[planned.kind]), where


def _screens(browser: Any, base: str, plan: dict[int, Planned], before: bool) -> dict[str, dict[int, int]]:
    """Screenshot the curator's screens at both widths; return each page's width by window."""
    first = Observation.objects.get(paper__arxiv_id=FLOW_CITING, reference_index=1)
    pages = {
        "queue": f"/admin/curation/observation/?queue=to_fix&paper={FLOW_CITING}",
        "observation": f"/admin/curation/observation/{first.pk}/change/",
        "history": f"/admin/curation/observation/{first.pk}/history/",
        "index": "/admin/",
    }
    if not before:
        pages = {"decided-queue": f"/admin/curation/observation/?queue=decided&paper={FLOW_CITING}",
                 "history-after": pages["history"], "index-after": "/admin/"}  # fmt: skip
    widths: dict[str, dict[int, int]] = {}
    for width in WIDTHS:
        page = login(browser, base, "alice", width=width, height=900)
        for name, url in pages.items():
            page.goto(base + url)
            shot(page, f"flow-{name}-{width}")
            widths.setdefault(name, {})[width] = page_width(page)
            if "queue" in name and width == 1280:  # every column in view, none scrolled away
                last = page.locator("#result_list thead th").last.bounding_box()
                shown = page.locator("#changelist .results").bounding_box()
                assert last is not None and shown is not None
                assert last["x"] + last["width"] <= shown["x"] + shown["width"] + 1, (name, last, shown)
        page.context.close()
    return widths


def test_a_curator_works_fifty_references_by_keyboard_and_save_and_next(
    live_server: Any, browser: Any, alice: Any
) -> None:
    plan = seed_flow()
    base = live_server.url
    widths = _screens(browser, base, plan, before=True)
    queue = WORK_QUEUES["to_fix"].condition
    assert Observation.objects.filter(queue, paper__arxiv_id=FLOW_CITING).count() == 50

    page = login(browser, base, "alice", width=1280, height=900)
    figures, order = work_the_queue(page, base, plan)

    # Each reference came up once, in queue order, and was decided as planned.
    assert order == list(range(1, 51))
    for o in Observation.objects.filter(paper__arxiv_id=FLOW_CITING):
        _check(o, plan[o.reference_index])
    # The queue drained; the decided queue holds them; the index counts what the queues list.
    assert "Nothing left in this queue" in page.locator(".messagelist").inner_text()
    assert Observation.objects.filter(queue, paper__arxiv_id=FLOW_CITING).count() == 0
    decided = Observation.objects.filter(WORK_QUEUES["decided"].condition)
    assert decided.filter(paper__arxiv_id=FLOW_CITING).count() == 50
    page.goto(f"{base}/admin/")
    assert page.inner_text("#queue-count-decided") == str(decided.count())
    assert page.inner_text("#queue-count-to_fix") == str(Observation.objects.filter(queue).count())

    widths.update(_screens(browser, base, plan, before=False))
    figures.widths = widths
    out = os.environ.get("CURATOR_FLOW_FIGURES")
    if out:  # the bench's figures, written before the checks so a failing run still reports
        Path(out).write_text(json.dumps(figures.summary(), indent=2))
    for name, by_window in widths.items():
        for window, width in by_window.items():
            assert width <= window, f"{name} is {width} px wide in a {window} px window"
    assert figures.actions / figures.decisions <= 2, figures.summary()

