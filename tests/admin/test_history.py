"""History screens: who, when, why, field by field; reverts audited; history append-only."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps
from django.db import DatabaseError, transaction
from django.test import Client

from .helpers import decide, fresh, last_context

LOG = "/admin/curation/observation/log/"


def history(client: Client, observation: Any) -> str:
    return client.get(f"/admin/curation/observation/{observation.pk}/history/").content.decode()


def test_history_shows_who_why_and_each_changed_field(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[2], "link", identifier="2302.00003", reason="title is the checkpointing paper")
    body = history(alice, resolved[2])
    assert "— alice <" in body and "title is the checkpointing paper" in body
    assert "metadata_mismatch" in body and "verified_exact" in body  # status before / after
    assert "pinned" in body
    # People, not row ids: the linked paper by identifier and title; the evidence in words.
    assert "cited_paper_id" not in body and "paper_id" not in body
    assert "linked paper" in body and "arXiv:2302.00003 — Checkpointing for fault tolerant deep learning" in body
    assert "<summary" in body and "raw JSON" in body


def test_revert_by_revision_number(resolved: Any, alice: Client) -> None:
    before = fresh(resolved[2]).revision
    decide(alice, resolved[2], "link", identifier="2302.00003", reason="checked")
    assert f"Revert to revision {before}" in history(alice, resolved[2])
    response = decide(alice, resolved[2], "revert", to_revision=before, reason="back")
    assert f"Reverted to revision {before}" in alice.get(response.url).content.decode()
    observation = fresh(resolved[2])
    assert observation.cited_paper is None and observation.resolution.status == "metadata_mismatch"


def test_revert_restores_the_earlier_version_and_is_itself_audited(resolved: Any, alice: Client) -> None:
    events = apps.get_model("curation", "ObservationEvent").objects.filter(pgh_obj_id=resolved[2].pk)
    before = events.order_by("-pgh_id").first()
    decide(alice, resolved[2], "link", identifier="2302.00003", reason="checked")
    decide(alice, resolved[2], "revert", event_id=before.pgh_id, reason="linked the wrong paper")
    observation = fresh(resolved[2])
    assert observation.cited_paper is None and observation.resolution.status == "metadata_mismatch"
    assert last_context(observation)["reason"] == "linked the wrong paper"
    assert "linked the wrong paper" in history(alice, resolved[2])


def test_history_cannot_be_edited(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[1], "set_state", status="parse_uncertain", reason="x")
    events = apps.get_model("curation", "ObservationEvent").objects.filter(pgh_obj_id=resolved[1].pk)
    with pytest.raises(DatabaseError), transaction.atomic():
        events.update(work_title="rewritten history")
    with pytest.raises(DatabaseError), transaction.atomic():
        events.delete()
    assert events.exists()


def test_global_log_filters_by_user_source_model_and_action(resolved: Any, alice: Client, bob: Client) -> None:
    decide(alice, resolved[1], "set_state", status="parse_uncertain", reason="alice did it")
    decide(bob, resolved[3], "retire", reason="bob did it")
    mine = alice.get(LOG, {"user": "user:alice"}).content.decode()
    assert "alice did it" in mine and "bob did it" not in mine
    imports = alice.get(LOG, {"source": "import", "model": "observation", "action": "insert"}).content.decode()
    assert "test reference list" in imports and "alice did it" not in imports
    assert "No changes match" in alice.get(LOG, {"since": "2000-01-01", "until": "2000-01-02"}).content.decode()


# Each decision in its own transaction, as in production: a page ends between two of them.
@pytest.mark.django_db(transaction=True)
def test_global_log_pages_by_keyset_without_gaps(resolved: Any, alice: Client, monkeypatch: Any) -> None:
    from curation.admin import log

    monkeypatch.setattr(log, "PAGE_SIZE", 3)
    for n in range(4):
        decide(alice, resolved[1], "correct", work_title=f"title {n}", reference_index="1", reason=f"edit {n}")
    seen, cursor = [], {}
    while True:
        entries, following = log.log_page({}, cursor)
        seen += [(e.model, e.event.pgh_id) for row in entries for e in row.entries]
        if following is None:
            break
        cursor = log.parse_cursor(following)
    total = sum(apps.get_model("curation", f"{m}Event").objects.count() for m in log.MODELS.values())
    assert len(seen) == len(set(seen)) == total
    assert "Older changes" in alice.get(LOG).content.decode()
