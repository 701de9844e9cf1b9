"""`manage.py backfill_verdict_labels`: the labels of decisions made before decisions wrote
them, read from history, are the labels the decisions write now (issue 41 item 3)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from curation.resolution.models import VerdictLabel
from curation.services.observations import (
    observation_link_arxiv,
    observation_mark_no_canonical_record,
    observation_set_state,
)
from curation.states import ResolutionStatus
from tests.resolution.verdicts_data import ALICE, catalogue, fresh, verdict

pytestmark = pytest.mark.django_db
FIELDS = ("observation_id", "step", "status", "resolver_source", "resolver_version",
          "probability", "band", "linked", "features", "outcome", "why", "action", "actor",
          "revision")  # fmt: skip


def backfill() -> str:
    out = io.StringIO()
    call_command("backfill_verdict_labels", "--batch", "2", stdout=out)
    return out.getvalue().strip()


def decisions() -> None:
    """Four decisions on resolver verdicts (one of each outcome) and one on a curator's."""
    catalogue("2301.00009")
    right, other, wrong, web = (verdict(i, probability=p) for i, p in
                                enumerate((0.999, 0.7, 0.3, None)))  # fmt: skip
    observation_link_arxiv(observation=right, arxiv_id="2301.00001",
                           expected_revision=right.revision, actor=ALICE, reason="right")
    observation_link_arxiv(observation=other, arxiv_id="2301.00009",
                           expected_revision=other.revision, actor=ALICE, reason="other")
    observation_set_state(observation=wrong, status=ResolutionStatus.UNRESOLVED,
                          expected_revision=wrong.revision, actor=ALICE, reason="wrong")
    observation_mark_no_canonical_record(observation=web, expected_revision=web.revision,
                                         actor=ALICE, reason="a web page")
    again = fresh(wrong)  # now a curator's decision: deciding again is no label
    observation_set_state(observation=again, status=ResolutionStatus.PARSE_UNCERTAIN,
                          expected_revision=again.revision, actor=ALICE, reason="again")  # fmt: skip


def test_labels_from_history_are_the_labels_decisions_write() -> None:
    decisions()
    live = sorted(VerdictLabel.objects.values_list(*FIELDS), key=str)
    assert len(live) == 4
    VerdictLabel.objects.all().delete()  # as before decisions wrote labels

    assert backfill() == "4 labels written from history"
    assert sorted(VerdictLabel.objects.values_list(*FIELDS), key=str) == live
    assert backfill() == "0 labels written from history"  # each decision once


def test_decisions_after_the_first_live_label_are_left_to_theirs() -> None:
    decisions()
    assert backfill() == "0 labels written from history"
    assert VerdictLabel.objects.filter(backfilled_from__isnull=False).count() == 0
