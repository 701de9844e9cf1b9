"""Two curators on one reference: the second save is refused and shows the first change."""

from __future__ import annotations

from typing import Any

from django.test import Client

from .helpers import decide, fresh, page_url


def test_the_second_curator_is_refused_and_sees_the_first_change(resolved: Any, alice: Client, bob: Client) -> None:
    observation = resolved[1]
    seen = fresh(observation).revision
    assert alice.get(page_url(observation)).status_code == 200
    assert bob.get(page_url(observation)).status_code == 200

    first = decide(alice, observation, "accept_candidate", revision=seen, identifier="arXiv:2301.00001", reason="first version")
    second = decide(bob, observation, "accept_candidate", revision=seen, identifier="arXiv:2301.00002", reason="the v2")

    assert first.status_code == 302
    assert second.status_code == 409
    body = second.content.decode()
    assert "someone else changed this reference first" in body
    assert "user:alice" in body and "first version" in body
    after = fresh(observation)
    assert after.cited_paper is not None and after.cited_paper.arxiv_id == "2301.00001"
    # Bob's reason survives on the refreshed page, on the new revision.
    assert "the v2" in body and f'value="{after.revision}"' in body


def test_a_stale_bulk_action_skips_the_changed_reference(resolved: Any, alice: Client, bob: Client) -> None:
    observation = resolved[3]
    seen = fresh(observation).revision
    decide(alice, observation, "set_state", status="parse_uncertain", reason="artefact")
    response = bob.post("/admin/curation/observation/", {
        "action": "retire_junk", "apply": "1", "_selected_action": [str(observation.pk)],
        "seen": [f"{observation.pk}:{seen}"], "reason": "junk",
    }, follow=True)
    assert "Skipped 1" in response.content.decode()
    assert fresh(observation).retired_at is None
