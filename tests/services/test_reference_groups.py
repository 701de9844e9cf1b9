"""One decision for many (issue 41, item 1): references citing the same work across papers are
grouped; one decision reaches every member with its own pinned history and the shared reason;
a stale group is refused; Undo works per group; later members get the decision (applied on
identical text, proposed otherwise) with evidence naming the group decision."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.apps import apps
from django.core.management import call_command
from django.utils import timezone

from curation.audit import Actor
from curation.models import (
    GroupDecisionMember,
    Observation,
    Paper,
    ReferenceGroup,
    ReferenceGroupMember,
)
from curation.references.listed import ListedReference
from curation.selectors import group_queue, queue_rates
from curation.services import reference_list_import
from curation.services.observations import observation_set_state
from curation.services.reference_groups import StaleGroup, group_decide, group_undo
from curation.states import ChangeSource

pytestmark = pytest.mark.django_db

ALICE = Actor(name="user:alice", source=ChangeSource.ADMIN, user_id=1)
BOB = Actor(name="user:bob", source=ChangeSource.ADMIN, user_id=2)
IMPORTER = Actor.importer("test")
SILENT = "J. Smith. Silent data corruption in large training runs. 2023."
SILENT_OTHER = "Smith, J. (2023). Silent Data Corruption in Large Training Runs. In Proc. SC."
JUNK = "write newline"




@pytest.fixture
def on_commit(django_capture_on_commit_callbacks: Any) -> Callable[[Callable[[], Any]], Any]:
    """Run a write and what it queued on commit (the group counts, the follow-up job)."""

    def run(write: Callable[[], Any]) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return write()

    return run


def cite(arxiv_id: str, *texts: str) -> None:
    reference_list_import(
        arxiv_id=arxiv_id,
        references=[ListedReference(n, t, label=str(n)) for n, t in enumerate(texts, 1)],
        actor=IMPORTER,
        reason="test reference list",
    )


@pytest.fixture
def cited(on_commit: Any) -> Iterator[ReferenceGroup]:
    """Three papers cite the silent-corruption paper, two with identical text; one cites junk."""
    now = timezone.now()
    Paper.objects.create(
        arxiv_id="2301.00001", title="Silent data corruption in large training runs",
        first_author="smith", year=2023, in_catalogue=True, submitted_at=now,
    )  # fmt: skip
    on_commit(lambda: cite("2501.00001", SILENT, JUNK))
    on_commit(lambda: cite("2501.00002", SILENT))
    on_commit(lambda: cite("2501.00003", SILENT_OTHER))
    yield group_of_text(SILENT)


def decide(group: ReferenceGroup, action: str, value: str = "", **given: Any) -> Any:
    """Decide the group on the revision given (default: the one it had when made)."""
    given.setdefault("actor", ALICE)
    given.setdefault("expected_revision", group.revision)
    return group_decide(group_id=group.pk, action=action, value=value, **given)


def members(text: str) -> list[Observation]:
    return list(
        Observation.objects.select_related("resolution", "paper")
        .filter(raw_text=text)
        .order_by("paper__arxiv_id")
    )


def group_of_text(text: str) -> ReferenceGroup:
    return ReferenceGroup.objects.filter(members__observation__raw_text=text).distinct().get()


def test_references_citing_the_same_work_in_other_spellings_share_a_group(
    cited: ReferenceGroup,
) -> None:
    assert cited.kind == "title"
    assert group_of_text(SILENT_OTHER).pk == cited.pk
    assert (cited.size, cited.undecided) == (3, 3)
    assert group_of_text(JUNK).size == 1
    # The queue lists groups with citations to fix; a lone reference is no group decision.
    assert list(group_queue()) == [cited]


def test_one_decision_reaches_every_member_with_its_own_history_and_the_shared_reason(
    cited: ReferenceGroup, on_commit: Any
) -> None:
    outcome = on_commit(
        lambda: decide(cited, "link", "arXiv:2301.00001", reason="the SC paper, every spelling")
    )
    assert outcome.done == 3 and outcome.skipped == []
    events = apps.get_model("curation", "ObservationEvent")
    for member in [*members(SILENT), *members(SILENT_OTHER)]:
        assert member.pinned and member.cited_paper.arxiv_id == "2301.00001"
        assert member.resolution.status == "verified_exact"
        assert member.resolution.evidence["group_decision"] == outcome.decision.pk
        # The decision's own event (the notice check it queued follows with its own).
        after = GroupDecisionMember.objects.get(observation=member).after_revision
        latest = events.objects.get(pgh_obj_id=member.pk, revision=after)
        assert latest.pgh_context.metadata["reason"] == "the SC paper, every spelling"
        assert latest.pgh_context.metadata["actor"] == "user:alice"
    group = ReferenceGroup.objects.get(pk=cited.pk)
    assert group.decision_id == outcome.decision.pk and group.undecided == 0
    assert list(group_queue()) == []


def test_a_member_decided_on_its_own_is_left_alone_and_named(
    cited: ReferenceGroup, on_commit: Any
) -> None:
    own = members(SILENT_OTHER)[0]
    on_commit(
        lambda: observation_set_state(
            observation=own,
            status="parse_uncertain",
            expected_revision=own.revision,
            actor=BOB,
            reason="Bob: another paper of the same title",
        )  # fmt: skip
    )
    assert ReferenceGroup.objects.get(pk=cited.pk).undecided == 2
    outcome = decide(cited, "no_canonical_record", reason="a talk, no record")
    assert outcome.done == 2
    assert (
        len(outcome.skipped) == 1 and "Bob: another paper of the same title" in outcome.skipped[0]
    )
    assert members(SILENT_OTHER)[0].resolution.status == "parse_uncertain"
    assert all(m.no_canonical_record for m in members(SILENT))


def test_a_stale_group_is_refused_and_nothing_is_written(cited: ReferenceGroup) -> None:
    shown = cited.revision
    decide(
        cited,
        "set_state",
        "parse_uncertain",
        expected_revision=shown,
        actor=BOB,
        reason="Bob first",
    )
    before = [(m.pk, m.revision) for m in members(SILENT)]
    with pytest.raises(StaleGroup, match="changed by bob .*Bob first"):
        decide(
            cited, "no_canonical_record", expected_revision=shown, reason="Alice on the old page"
        )
    assert [(m.pk, m.revision) for m in members(SILENT)] == before
    assert not any(m.no_canonical_record for m in members(SILENT))


def test_undo_per_group_restores_every_member_but_one_changed_since(
    cited: ReferenceGroup, on_commit: Any
) -> None:
    before = {m.pk: (m.revision, m.pinned, getattr(m, "resolution", None)) for m in members(SILENT)}
    outcome = decide(cited, "set_state", "parse_uncertain", reason="author fragment")
    changed = members(SILENT_OTHER)[0]
    observation_set_state(
        observation=changed, status="metadata_mismatch", expected_revision=changed.revision,
        actor=BOB, reason="Bob: the year is wrong",
    )  # fmt: skip
    group = ReferenceGroup.objects.get(pk=cited.pk)
    undone = on_commit(
        lambda: group_undo(group_id=group.pk, expected_revision=group.revision, actor=ALICE)
    )
    assert undone.done == 2 and len(undone.skipped) == 1
    assert "Bob: the year is wrong" in undone.skipped[0]
    for member in members(SILENT):
        assert not member.pinned and member.revision > before[member.pk][0]
        assert getattr(member, "resolution", None) is None  # never resolved before the decision
    assert members(SILENT_OTHER)[0].resolution.status == "metadata_mismatch"
    group = ReferenceGroup.objects.get(pk=cited.pk)
    assert group.decision_id is None and group.undecided == 2
    outcome.decision.refresh_from_db()
    assert outcome.decision.undone_at is not None and outcome.decision.undone_by == "user:alice"


def test_a_new_member_gets_the_decision_applied_on_identical_text_proposed_otherwise(
    cited: ReferenceGroup, on_commit: Any
) -> None:
    decided = on_commit(lambda: decide(cited, "link", "2301.00001", reason="the SC paper")).decision
    on_commit(lambda: cite("2502.00004", SILENT))
    on_commit(
        lambda: cite("2502.00005", "Smith J. Silent data corruption in large training runs, 2023")
    )
    joined = Observation.objects.select_related("resolution").get(paper__arxiv_id="2502.00004")
    assert joined.pinned and joined.cited_paper.arxiv_id == "2301.00001"
    assert joined.resolution.evidence["group_decision"] == decided.pk
    after = GroupDecisionMember.objects.get(observation=joined).after_revision
    event = apps.get_model("curation", "ObservationEvent").objects.get(
        pgh_obj_id=joined.pk, revision=after
    )
    assert event.pgh_context.metadata["reason"] == f"group decision {decided.pk}: the SC paper"
    other = Observation.objects.get(paper__arxiv_id="2502.00005")
    assert not other.pinned
    proposal = GroupDecisionMember.objects.get(observation=other)
    assert proposal.state == "proposed" and proposal.evidence["group_decision"] == decided.pk
    group = ReferenceGroup.objects.get(pk=cited.pk)
    assert (group.size, group.undecided) == (5, 1)


def test_queue_rates_count_decisions_and_say_when_the_queue_is_empty(
    cited: ReferenceGroup, on_commit: Any
) -> None:
    on_commit(lambda: cite("2502.00006", JUNK))  # a second group to decide
    decide(cited, "no_canonical_record", reason="a talk")
    groups, references = queue_rates(hours=2)
    assert (groups.size, groups.decisions, groups.settled) == (1, 1, 3)
    assert groups.per_hour == 0.5 and groups.hours_to_empty == 2.0
    assert references.decisions == 1 and references.settled == 3


def test_references_from_before_groups_are_grouped_by_the_backfill_command(
    cited: ReferenceGroup, django_capture_on_commit_callbacks: Any
) -> None:
    ReferenceGroupMember.objects.all().delete()  # as before groups existed
    ReferenceGroup.objects.all().delete()
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("group_references", "--batch", "2", stdout=out)
    assert "done: 4 references grouped" in out.getvalue()
    group = group_of_text(SILENT)
    assert group_of_text(SILENT_OTHER) == group
    assert (group.size, group.undecided) == (3, 3)


def test_a_large_group_is_decided_and_undone_in_chunks_by_jobs_queued_on_commit(
    cited: ReferenceGroup, on_commit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("curation.services.reference_groups.GROUP_CHUNK", 2)
    on_commit(lambda: cite("2502.00007", SILENT))  # four undecided members: two chunks
    group = ReferenceGroup.objects.get(pk=cited.pk)
    outcome = on_commit(lambda: decide(group, "no_canonical_record", reason="a talk"))
    assert outcome.done == 2 and outcome.queued  # the request's own chunk
    all_members = [*members(SILENT), *members(SILENT_OTHER)]
    assert len(all_members) == 4 and all(m.no_canonical_record and m.pinned for m in all_members)
    events = apps.get_model("curation", "ObservationEvent")
    contexts = {
        events.objects.get(pgh_obj_id=m.pk, pinned=True, pgh_label="update").pgh_context.metadata
        ["source"] for m in all_members
    }  # fmt: skip
    assert contexts == {"admin", "task"}  # the curator's, then the job carrying it on
    group.refresh_from_db()
    undone = on_commit(
        lambda: group_undo(group_id=group.pk, expected_revision=group.revision, actor=ALICE)
    )
    assert undone.done == 2 and undone.queued
    assert not any(m.pinned for m in [*members(SILENT), *members(SILENT_OTHER)])
    assert ReferenceGroup.objects.get(pk=cited.pk).undecided == 4


def test_a_journal_doi_and_its_arxiv_preprint_are_one_group(on_commit: Any) -> None:
    now = timezone.now()
    Paper.objects.create(
        arxiv_id="2301.00009", title="Gradient compression at scale", doi="10.1145/3581784.1",
        first_author="lee", year=2023, in_catalogue=True, submitted_at=now,
    )  # fmt: skip
    on_commit(
        lambda: cite("2503.00001", "K. Lee. Gradient compression. SC 2023. doi:10.1145/3581784.1")
    )
    on_commit(
        lambda: cite("2503.00002", "K. Lee. Gradient compression at scale. arXiv:2301.00009v3")
    )
    group = ReferenceGroup.objects.get(key="arxiv:2301.00009")
    assert (group.size, group.undecided) == (2, 2)


def test_a_reference_retired_by_a_reimport_leaves_its_group_count(
    cited: ReferenceGroup, on_commit: Any
) -> None:
    on_commit(lambda: cite("2501.00002", "a different reference now"))  # SILENT disappeared
    group = ReferenceGroup.objects.get(pk=cited.pk)
    assert (group.size, group.undecided) == (2, 2)
    on_commit(lambda: cite("2501.00002", SILENT))  # and came back
    assert ReferenceGroup.objects.get(pk=cited.pk).size == 3


def test_an_undone_group_decision_empties_no_group_queue(cited: ReferenceGroup, on_commit: Any) -> None:
    decide(cited, "no_canonical_record", reason="a talk")
    group = ReferenceGroup.objects.get(pk=cited.pk)
    on_commit(lambda: group_undo(group_id=group.pk, expected_revision=group.revision, actor=ALICE))
    groups, references = queue_rates(hours=2)
    assert (groups.decisions, groups.settled, groups.hours_to_empty) == (0, 0, None)
    assert (references.decisions, references.settled) == (1, 3)  # the decision, not its undo
