"""Working the queue without leaving it: queues that drain, save-and-next and skip inside the
same filters and search, reasons offered again, counts on the index, one 0-100 score scale,
and the best text for imported rows."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from django.test import Client

from curation.models import Observation
from curation.resolution.candidates import score_0_100
from curation.selectors import WORK_QUEUES

from .helpers import decide, fresh, page_url

QUEUE = "/admin/curation/observation/"


def _in(queue: str, observation: Observation) -> bool:
    return Observation.objects.filter(WORK_QUEUES[queue].condition, pk=observation.pk).exists()


def test_a_decision_moves_the_reference_from_to_fix_to_decided(resolved: Any, alice: Client) -> None:
    assert _in("to_fix", resolved[3]) and not _in("decided", resolved[3])
    decide(alice, resolved[3], "set_state", status="parse_uncertain", reason="a BibTeX artefact")
    assert not _in("to_fix", resolved[3]) and _in("decided", resolved[3])
    alice.get(QUEUE)  # shows the success message once: its Undo form names the reference
    assert str(resolved[3].pk) not in alice.get(QUEUE).content.decode()
    assert str(resolved[3].pk) in alice.get(QUEUE, {"queue": "decided"}).content.decode()


def test_the_index_counts_what_the_queues_list(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[4], "no_canonical_record", reason="a GitHub issue")
    index = alice.get("/admin/").content.decode()
    for key in ("to_fix", "decided", "no_record"):
        shown = re.search(rf'id="queue-count-{key}">([^<]+)<', index)
        assert shown is not None, key
        assert shown.group(1).strip() == str(Observation.objects.filter(WORK_QUEUES[key].condition).count())


def test_save_and_next_keeps_the_queue_and_its_filters(resolved: Any, alice: Client) -> None:
    filters = "queue=live&paper=2501.00001"
    url = f"{page_url(resolved[1])}?_changelist_filters={quote(filters)}"
    page = alice.get(url).content.decode()
    assert 'href="/admin/curation/observation/?queue=live&amp;paper=2501.00001"' in page  # back to the queue
    revision = fresh(resolved[1]).revision
    response = alice.post(url, {
        "action": "accept_candidate", "top_candidate": "arXiv:2301.00001", "revision": revision,
        "reason": "the first listing", "_next": "1",
    })  # fmt: skip
    assert response.status_code == 302
    assert response.url == f"{page_url(resolved[2])}?_changelist_filters={quote(filters, safe='')}"
    assert fresh(resolved[1]).cited_paper.arxiv_id == "2301.00001"
    # The reason is offered again for the same kind of decision, in this session.
    assert "the first listing" in alice.get(response.url).content.decode()


def test_skip_opens_the_next_reference_and_writes_nothing(resolved: Any, alice: Client) -> None:
    revision = fresh(resolved[1]).revision
    response = alice.get(f"{QUEUE}{resolved[1].pk}/next/?_changelist_filters={quote('queue=to_fix')}")
    assert response.status_code == 302 and str(resolved[2].pk) in response.url
    assert fresh(resolved[1]).revision == revision
    # Past the last reference the walk starts again from the top; an empty queue goes back to the list.
    last = alice.get(f"{QUEUE}{resolved[4].pk}/next/?_changelist_filters={quote('queue=to_fix')}")
    assert str(resolved[1].pk) in last.url
    empty = alice.get(f"{QUEUE}{resolved[1].pk}/next/?_changelist_filters={quote('queue=retired')}")
    assert empty.url == f"{QUEUE}?queue=retired"
    # The search is kept too: only [1] matches these words, so nothing follows it.
    searched = alice.get(f"{QUEUE}{resolved[1].pk}/next/?_changelist_filters={quote('queue=live&q=silent corruption')}")
    assert searched.url == f"{QUEUE}?queue=live&q=silent%20corruption"
    both = alice.get(f"{QUEUE}{resolved[1].pk}/next/?_changelist_filters={quote('queue=live&q=2303.00004')}")
    assert str(resolved[2].pk) in both.url


def test_scores_are_shown_on_one_0_to_100_scale() -> None:
    assert score_0_100(-24.4) == 0 and score_0_100(106) == 100 and score_0_100(105) == 99
    assert score_0_100(53) == 50 and score_0_100(None) is None and score_0_100("x") is None


def test_imported_rows_show_what_the_record_describes(sample: None, alice: Client) -> None:
    body = alice.get(QUEUE, {"queue": "live", "paper": "2412.14374"}).content.decode()
    assert "imported, no raw text" not in body
    observation = Observation.objects.filter(paper__arxiv_id="2412.14374", raw_text__isnull=True).exclude(work_title=None).first()
    assert observation is not None and observation.work_title[:40] in body
    confirm = alice.post(QUEUE + "?queue=live", {"action": "mark_no_canonical_record", "_selected_action": [str(observation.pk)]})
    page = confirm.content.decode()
    assert observation.work_title[:40] in page and "imported:" in page
    assert observation.work_title[:40] in alice.get(page_url(observation)).content.decode()
