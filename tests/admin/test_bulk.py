"""Bulk actions: a confirmation with a reason, then the services under one history context."""

from __future__ import annotations

import re
from typing import Any

from django.test import Client

from curation.models import Observation
from curation.resolution.models import PinnedDisagreement

from .conftest import resolve_all
from .helpers import decide, fresh, last_context

QUEUE = "/admin/curation/observation/"


def bulk(client: Client, action: str, observations: list[Observation], **data: Any) -> Any:
    """Confirm a bulk action on the observations, on the revisions stored now."""
    return client.post(QUEUE + "?queue=live", {
        "action": action, "apply": "1", "_selected_action": [str(o.pk) for o in observations],
        "seen": [f"{o.pk}:{fresh(o).revision}" for o in observations], **data,
    }, follow=True)


def test_a_bulk_action_first_asks_for_a_reason(resolved: Any, alice: Client) -> None:
    response = alice.post(QUEUE, {"action": "mark_parse_uncertain", "_selected_action": [str(resolved[3].pk)]})
    assert response.status_code == 200 and "Confirm" in response.content.decode()
    assert fresh(resolved[3]).resolution.status == "parse_uncertain" and not fresh(resolved[3]).pinned


def test_accept_top_candidate_respects_the_threshold_and_carries_its_context(resolved: Any, alice: Client) -> None:
    response = bulk(alice, "accept_top_candidate", [resolved[1], resolved[2]], threshold="50", reason="obvious ones")
    assert "Accepted the top candidate: 1 observation" in response.content.decode()
    linked = fresh(resolved[1])
    assert linked.cited_paper is not None and linked.pinned
    assert fresh(resolved[2]).cited_paper is None  # score 6.7: below the threshold
    context = last_context(linked)
    assert context["actor"] == "user:alice" and context["reason"] == "obvious ones"
    assert context["bulk_action"] == "accept_top_candidate" and context["source"] == "admin"


def test_mark_no_canonical_record_takes_references_off_the_queue(resolved: Any, alice: Client) -> None:
    bulk(alice, "mark_no_canonical_record", [resolved[4]], reason="GitHub issue")
    queue = alice.get(QUEUE).content.decode()
    assert str(resolved[4].pk) not in queue and str(resolved[1].pk) in queue
    assert str(resolved[4].pk) in alice.get(QUEUE, {"queue": "no_record"}).content.decode()


def test_propagated_fix_shows_the_count_first_and_records_its_context(resolved: Any, alice: Client, sample: None) -> None:
    from curation.services import reference_list_import

    from .conftest import IMPORTER, Listed

    reference_list_import(arxiv_id="2412.14374", references=[Listed(1, "1", "write newline")], actor=IMPORTER, reason="list")
    decide(alice, resolved[3], "set_state", status="parse_uncertain", reason="artefact")
    # Decided, it left "to fix": the curator copies it from the decided queue.
    confirm = alice.post(QUEUE + "?queue=decided", {"action": "apply_same_text", "_selected_action": [str(resolved[3].pk)]})
    assert 'id="cr-same-count">1<' in confirm.content.decode()
    shown = re.findall(r'name="seen" value="([^"]+)"', confirm.content.decode())
    assert len(shown) == 2  # the source and its one same-text target, at the revisions shown
    alice.post(QUEUE + "?queue=decided", {
        "action": "apply_same_text", "apply": "1", "_selected_action": [str(resolved[3].pk)],
        "seen": shown, "reason": "same artefact everywhere",
    })
    other = Observation.objects.get(paper__arxiv_id="2412.14374", raw_text="write newline")
    assert other.pinned and other.resolution.status == "parse_uncertain"
    context = last_context(other)
    assert context["reason"] == "same artefact everywhere" and context["bulk_action"] == "apply_same_text"


def test_merge_and_retire_are_revertible(resolved: Any, alice: Client) -> None:
    bulk(alice, "merge_duplicates", [resolved[1], resolved[2]], reason="duplicate entry")
    assert fresh(resolved[1]).retired_at is None and fresh(resolved[2]).retired_at is not None
    bulk(alice, "retire_junk", [resolved[3]], reason="year read as a reference")
    retired = fresh(resolved[3])
    assert retired.retired_at is not None
    history = alice.get(f"/admin/curation/observation/{retired.pk}/history/").content.decode()
    assert "Revert to revision" in history
    from django.apps import apps

    first = apps.get_model("curation", "ObservationEvent").objects.filter(pgh_obj_id=retired.pk).order_by("pgh_id").first()
    decide(alice, retired, "revert", event_id=first.pgh_id, reason="not junk after all")
    assert fresh(resolved[3]).retired_at is None


def test_rerun_resolver_in_bulk_leaves_pinned_decisions_alone(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[2], "link", identifier="2302.00003", reason="checked by hand")
    response = bulk(alice, "rerun_resolver", [resolved[1], resolved[2]], reason="catalogue grew")
    assert "Re-ran the resolver" in response.content.decode()
    pinned = fresh(resolved[2])
    assert pinned.resolution.status == "verified_exact" and pinned.cited_paper.arxiv_id == "2302.00003"
    assert PinnedDisagreement.objects.filter(observation=pinned).exists()


def test_a_task_run_of_the_resolver_leaves_pinned_decisions_alone(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[1], "accept_candidate", identifier="arXiv:2301.00002", reason="v2")
    resolve_all()
    kept = fresh(resolved[1])
    assert kept.resolution.status == "verified_exact" and kept.cited_paper.arxiv_id == "2301.00002"
