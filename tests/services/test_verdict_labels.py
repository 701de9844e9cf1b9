"""Every curator decision on a resolver verdict is a label (issue 41 item 3): the verdict as the
curator saw it and what they made of it, written by the decision itself."""

from __future__ import annotations

import pytest

from curation.resolution.models import LabelOutcome, LabelWhy, VerdictLabel
from curation.services.observations import (
    observation_correct,
    observation_link_arxiv,
    observation_mark_no_canonical_record,
    observation_set_state,
)
from curation.states import ResolutionStatus
from tests.resolution.verdicts_data import ALICE, catalogue, fresh, verdict

pytestmark = pytest.mark.django_db


def only_label() -> VerdictLabel:
    labels = list(VerdictLabel.objects.all())
    assert len(labels) == 1, labels
    return labels[0]


def test_linking_the_work_the_resolver_linked_confirms_it() -> None:
    o = verdict(1, links="2301.00001", probability=0.97)
    observation_link_arxiv(observation=o, arxiv_id="2301.00001", expected_revision=o.revision,
                           actor=ALICE, reason="right")  # fmt: skip
    label = only_label()
    assert label.outcome == LabelOutcome.CONFIRMED
    assert label.why == LabelWhy.QUEUE
    assert (label.step, label.status, label.band) == ("string", "verified_fuzzy", "0.95–0.99")
    assert label.probability == 0.97 and label.linked == "arXiv:2301.00001"
    assert label.actor == "user:alice" and label.action == "link_arxiv"
    assert label.features is not None and len(label.features) == 15  # calibration.FEATURES


def test_linking_another_work_overturns_the_link() -> None:
    o = verdict(1, links="2301.00001")
    catalogue("2301.00009")
    observation_link_arxiv(observation=o, arxiv_id="2301.00009", expected_revision=o.revision,
                           actor=ALICE, reason="the other one")  # fmt: skip
    label = only_label()
    assert label.outcome == LabelOutcome.RELINKED
    assert label.linked == "arXiv:2301.00001"  # what the resolver linked, not the new link


def test_a_state_without_a_link_unlinks_and_no_canonical_record_is_no_match() -> None:
    a, b = verdict(1), verdict(2)
    observation_set_state(observation=a, status=ResolutionStatus.UNRESOLVED,
                          expected_revision=a.revision, actor=ALICE, reason="not it")  # fmt: skip
    observation_mark_no_canonical_record(observation=b, expected_revision=b.revision,
                                         actor=ALICE, reason="a web page")  # fmt: skip
    outcomes = dict(VerdictLabel.objects.values_list("observation_id", "outcome"))
    assert outcomes == {a.pk: LabelOutcome.UNLINKED, b.pk: LabelOutcome.NO_MATCH}


def test_a_verdict_that_linked_nothing_is_overturned_when_the_curator_finds_the_work() -> None:
    o = verdict(1, links=None, step="string", probability=None, status=ResolutionStatus.UNRESOLVED)
    catalogue("2301.00005")
    observation_link_arxiv(observation=o, arxiv_id="2301.00005", expected_revision=o.revision,
                           actor=ALICE, reason="found it")  # fmt: skip
    label = only_label()
    assert label.outcome == LabelOutcome.RELINKED
    assert (label.status, label.band, label.linked) == ("unresolved", "no probability (string)", "")


def test_deciding_again_on_a_curators_decision_is_no_label() -> None:
    o = verdict(1)
    observation_set_state(observation=o, status=ResolutionStatus.UNRESOLVED,
                          expected_revision=o.revision, actor=ALICE, reason="not it")  # fmt: skip
    o = fresh(o)
    observation_link_arxiv(observation=o, arxiv_id="2301.00001", expected_revision=o.revision,
                           actor=ALICE, reason="it was after all")  # fmt: skip
    assert VerdictLabel.objects.count() == 1  # the second decision overturned a curator's


def test_a_correction_decides_nothing_about_the_link() -> None:
    o = verdict(1)
    observation_correct(observation=o, changes={"work_year": 2020}, expected_revision=o.revision,
                        actor=ALICE, reason="typo")  # fmt: skip
    assert not VerdictLabel.objects.exists()


def test_a_refused_decision_writes_no_label() -> None:
    o = verdict(1)
    with pytest.raises(Exception, match="was changed by"):
        observation_set_state(observation=o, status=ResolutionStatus.UNRESOLVED,
                              expected_revision=o.revision - 1, actor=ALICE, reason="stale")  # fmt: skip
    assert not VerdictLabel.objects.exists()


def test_an_undone_decision_withdraws_its_label_and_reopens_its_sampled_link() -> None:
    from curation.resolution.models import LinkSampleItem
    from curation.services.link_samples import link_sample_draw
    from curation.services.observations import observation_undo

    o = verdict(1)
    kept = verdict(2)
    observation_set_state(observation=kept, status=ResolutionStatus.UNRESOLVED,
                          expected_revision=kept.revision, actor=ALICE, reason="not it")  # fmt: skip
    link_sample_draw(per_band=5, seed="s", actor=ALICE, reason="check")
    item = LinkSampleItem.objects.get(observation=o)
    seen = o.revision
    observation_set_state(observation=o, status=ResolutionStatus.UNRESOLVED,
                          expected_revision=seen, actor=ALICE, reason="mis-click")  # fmt: skip
    assert VerdictLabel.objects.filter(observation=o).count() == 1
    decided = fresh(o).revision
    observation_undo(observation=fresh(o), decided_revision=decided, to_revision=seen, actor=ALICE)
    assert not VerdictLabel.objects.filter(observation=o).exists()
    item.refresh_from_db()
    assert item.checked_at is None and item.outcome == ""
    assert VerdictLabel.objects.filter(observation=kept).count() == 1  # another reference's stays
