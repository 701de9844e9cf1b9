"""Curator corrections of title and venue are bounded like imported strings (curation.limits)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command

from curation.audit import Actor
from curation.models import Observation
from curation.services.observations import CurationError, observation_correct
from curation.states import ChangeSource

pytestmark = pytest.mark.django_db

ALICE = Actor(name="alice", source=ChangeSource.ADMIN, user_id=1)


@pytest.fixture
def observation(sample_record_path: Path) -> Observation:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    return Observation.objects.get(paper__arxiv_id="2412.14374", reference_index=5)


def correct(observation: Observation, **changes: object) -> Observation:
    return observation_correct(
        observation=observation, changes=changes, expected_revision=observation.revision,
        actor=ALICE, reason="typo",
    )  # fmt: skip


@pytest.mark.parametrize("name", ["work_title", "work_venue"])
def test_an_over_long_correction_is_refused_and_nothing_written(
    observation: Observation, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(django_settings, "CITEREC_MAX_STRING_CHARS", 100)
    before = Observation.objects.get(pk=observation.pk)
    with pytest.raises(CurationError) as refused:
        correct(observation, **{name: "x" * 101})
    assert str(refused.value) == (
        f"{name} of 101 characters is longer than the limit of 100 characters "
        "(CITEREC_MAX_STRING_CHARS)"
    )
    after = Observation.objects.get(pk=observation.pk)
    assert (after.revision, getattr(after, name), after.pinned) == (
        before.revision, getattr(before, name), before.pinned,
    )  # fmt: skip
    corrected = correct(after, **{name: "x" * 100})  # at the limit: accepted
    assert getattr(Observation.objects.get(pk=observation.pk), name) == "x" * 100
    assert corrected.revision == before.revision + 1


def test_a_nul_character_is_refused(observation: Observation) -> None:
    with pytest.raises(CurationError, match="work_title contains a NUL character"):
        correct(observation, work_title="a\x00b")
