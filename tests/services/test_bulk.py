"""Bulk decisions (curation.services.bulk): one transaction and history context per action,
and an observation changed since the curator looked is skipped, never overwritten."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from curation.audit import Actor
from curation.models import Observation, ObservationEvent
from curation.services.bulk import BULK_ACTIONS, observations_bulk_decide
from curation.services.observations import CurationError, observation_set_state
from curation.states import ChangeSource

pytestmark = pytest.mark.django_db

ALICE = Actor(name="alice", source=ChangeSource.ADMIN, user_id=1)
BOB = Actor(name="bob", source=ChangeSource.ADMIN, user_id=2)


@pytest.fixture
def refs(sample_record_path: Path) -> list[Observation]:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    return list(
        Observation.objects.filter(paper__arxiv_id="2412.14374").order_by("reference_index")[:3]
    )


def test_a_bulk_state_is_one_history_context_and_skips_what_changed_since(
    refs: list[Observation],
) -> None:
    seen = {str(o.pk): o.revision for o in refs}
    changed = refs[2]
    observation_set_state(
        observation=changed, status="unresolved", expected_revision=changed.revision,
        actor=BOB, reason="bob got there first",
    )  # fmt: skip

    outcome = observations_bulk_decide(
        action="mark_parse_uncertain", observations=refs, seen=seen, actor=ALICE,
        reason="garbled",
    )  # fmt: skip

    assert outcome.done == 2 and len(outcome.skipped) == 1
    assert "bob got there first" in outcome.skipped[0]
    contexts = {
        e.pgh_context_id
        for e in ObservationEvent.objects.filter(pgh_obj_id__in=[o.pk for o in refs[:2]])
        if e.pgh_context and e.pgh_context.metadata.get("reason") == "garbled"
    }
    assert len(contexts) == 1  # the whole action in one history context
    assert Observation.objects.get(pk=changed.pk).resolution.status == "unresolved"


def test_an_observation_not_shown_is_skipped(refs: list[Observation]) -> None:
    outcome = observations_bulk_decide(
        action="retire_junk", observations=refs[:1], seen={}, actor=ALICE, reason="junk"
    )
    assert (outcome.done, outcome.skipped) == (
        0,
        [f"{_label(refs[0])}: not shown on the confirmation page"],
    )
    assert Observation.objects.get(pk=refs[0].pk).retired_at is None


def test_an_unknown_action_writes_nothing(refs: list[Observation]) -> None:
    assert "accept_top_candidate" in BULK_ACTIONS
    with pytest.raises(CurationError, match="unknown bulk action"):
        observations_bulk_decide(
            action="delete_everything", observations=refs, seen={}, actor=ALICE, reason="x"
        )


def _label(o: Observation) -> str:
    from curation.services.observation_groups import label

    return label(o)
