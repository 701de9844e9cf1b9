"""Two curators deciding at the same moment, each in a thread with its own database connection
and transaction: merge, split and same-text propagation have exactly one winner, never
deadlock, and the loser is told who changed what, when and why."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from curation.audit import Actor
from curation.models import Observation
from curation.references.listed import ListedReference
from curation.selectors import same_text_observations
from curation.services import reference_list_import
from curation.services.observation_groups import (
    observation_split,
    observations_apply_same_text,
    observations_merge,
)
from curation.services.observations import (
    CurationError,
    StaleRevision,
    observation_mark_no_canonical_record,
    observation_retire,
)
from curation.states import ChangeSource
from tests.races import race

pytestmark = pytest.mark.django_db(transaction=True)

ALICE = Actor(name="user:alice", source=ChangeSource.ADMIN, user_id=1)
BOB = Actor(name="user:bob", source=ChangeSource.ADMIN, user_id=2)
SHARED = "Jouppi, N. et al. In-Datacenter Performance Analysis of a Tensor Processing Unit. 2017."


Ref = ListedReference  # a reference as every reader returns it


def paper(refs: list[str]) -> list[Observation]:
    """Import a reference list for a new paper; return its observations by number."""
    arxiv_id = f"2501.{uuid.uuid4().int % 90000 + 10000:05d}"
    reference_list_import(
        arxiv_id=arxiv_id,
        references=[Ref(n, raw) for n, raw in enumerate(refs, 1)],
        actor=Actor.importer("test"),
        reason="fixture",
    )
    return list(Observation.objects.filter(paper__arxiv_id=arxiv_id).order_by("reference_index"))


def fresh(observation: Observation) -> Observation:
    return Observation.objects.select_related("paper").get(pk=observation.pk)


def seen(*observations: Observation) -> dict[str, int]:
    return {str(o.pk): o.revision for o in observations}


def one_winner(results: list[Any], refused: type[Exception]) -> tuple[Any, Exception]:
    losers = [r for r in results if isinstance(r, Exception)]
    winners = [r for r in results if not isinstance(r, Exception)]
    assert len(winners) == 1 and len(losers) == 1, results
    assert isinstance(losers[0], refused), repr(losers[0])
    return winners[0], losers[0]


def test_two_merges_of_one_duplicate_into_two_keepers_have_one_winner() -> None:
    first, duplicate, second = paper(["Work A. 2019.", "Work A, 2019", "Work A (2019)."])
    shown = seen(first, duplicate, second)

    def merge_into(keep: Observation, actor: Actor) -> Callable[[], Any]:
        return lambda: observations_merge(
            keep=keep, duplicates=[duplicate], revisions=shown, actor=actor, reason=actor.name
        )

    winner, loser = one_winner(
        race(merge_into(first, ALICE), merge_into(second, BOB)), CurationError
    )

    assert winner.done == 1
    assert "already merged into" in str(loser) and ("by alice" in str(loser) or "by bob" in str(loser))
    assert fresh(duplicate).retired_at is not None
    assert fresh(first).retired_at is None and fresh(second).retired_at is None


def test_merges_into_each_other_never_deadlock_and_one_wins() -> None:
    a, b = paper(["Work B. 2020.", "Work B, 2020"])
    shown = seen(a, b)
    results = race(
        lambda: observations_merge(
            keep=a, duplicates=[b], revisions=shown, actor=ALICE, reason="b into a"
        ),
        lambda: observations_merge(
            keep=b, duplicates=[a], revisions=shown, actor=BOB, reason="a into b"
        ),
    )
    _, loser = one_winner(results, CurationError)  # a stale keeper is a StaleRevision too
    assert "changed by" in str(loser)
    assert [fresh(a).retired_at is None, fresh(b).retired_at is None].count(True) == 1


def test_merging_a_retired_observation_again_is_refused() -> None:
    keep, duplicate, other = paper(["Work C. 2021.", "Work C, 2021", "Work C (2021)."])
    observations_merge(
        keep=keep,
        duplicates=[duplicate],
        revisions=seen(keep, duplicate),
        actor=ALICE,
        reason="dup",
    )
    duplicate = fresh(duplicate)

    with pytest.raises(CurationError, match="already merged into .* by alice"):
        observations_merge(
            keep=other,
            duplicates=[duplicate],
            revisions=seen(other, duplicate),
            actor=BOB,
            reason="again",
        )
    with pytest.raises(
        CurationError, match="cannot merge into this reference: .* retired|already merged"
    ):
        observations_merge(
            keep=duplicate,
            duplicates=[other],
            revisions=seen(other, duplicate),
            actor=BOB,
            reason="into it",
        )
    assert fresh(other).retired_at is None


def test_two_splits_of_one_reference_have_one_winner() -> None:
    (both,) = paper(["First work. 2019. Second work. 2020."])

    def split(actor: Actor) -> Callable[[], Any]:
        return lambda: observation_split(
            observation=both,
            parts=["First work. 2019.", "Second work. 2020."],
            expected_revision=both.revision,
            actor=actor,
            reason=f"{actor.name} splits",
        )

    winner, loser = one_winner(race(split(ALICE), split(BOB)), StaleRevision)

    assert len(winner) == 2
    assert "splits" in str(loser) and loser.current == both.revision + 1  # type: ignore[attr-defined]
    live = Observation.objects.filter(paper=both.paper, retired_at__isnull=True)
    assert sorted(o.raw_text for o in live) == ["First work. 2019.", "Second work. 2020."]


def test_splitting_a_retired_reference_is_refused() -> None:
    (junk,) = paper(["2022"])
    observation_retire(
        observation=junk, expected_revision=junk.revision, actor=ALICE, reason="a year"
    )
    junk = fresh(junk)
    with pytest.raises(CurationError, match="cannot split: .* retired by alice"):
        observation_split(
            observation=junk,
            parts=["a", "b"],
            expected_revision=junk.revision,
            actor=BOB,
            reason="x",
        )


def _decided_sources(count: int) -> list[Observation]:
    """Return `count` papers' references with the same text, the first two decided by a curator."""
    refs = [paper([SHARED, f"Other reference {n}."])[0] for n in range(count)]
    for source, actor in zip(refs[:2], (ALICE, BOB), strict=True):
        observation_mark_no_canonical_record(
            observation=source,
            expected_revision=source.revision,
            actor=actor,
            reason=f"{actor.name} decided",
        )
    return [fresh(o) for o in refs]


def _propagate(source: Observation, actor: Actor) -> Callable[[], Any]:
    targets = seen(*same_text_observations(source))
    return lambda: observations_apply_same_text(
        observation=source,
        expected_revision=source.revision,
        target_revisions=targets,
        actor=actor,
        reason=f"{actor.name} propagates",
    )


@pytest.mark.parametrize("round_", range(3))  # each round a fresh database and a new race
def test_two_propagations_over_the_same_rows_never_deadlock_and_one_wins(round_: int) -> None:
    alice_source, bob_source, *others = _decided_sources(5)

    winner, loser = one_winner(
        race(_propagate(alice_source, ALICE), _propagate(bob_source, BOB)), StaleRevision
    )

    # The winner wrote every other same-text reference, the loser's source included.
    assert winner.done == 4 and winner.skipped == []
    assert "propagates" in str(loser)
    decided = {o.revision for o in Observation.objects.filter(pk__in=[o.pk for o in others])}
    assert decided == {others[0].revision + 1}


def test_a_propagation_skips_and_reports_targets_changed_or_retired_since_shown() -> None:
    source, changed, retired, untouched, *_ = _decided_sources(5)
    # `changed` was decided by Bob in the fixture; show the page now, then change two targets.
    propagate = _propagate(source, ALICE)
    observation_retire(
        observation=retired, expected_revision=retired.revision, actor=BOB, reason="Bob: junk"
    )
    paper([SHARED])  # a new same-text reference appears after the page was shown
    changed = fresh(changed)
    observation_retire(
        observation=changed,
        expected_revision=changed.revision,
        actor=BOB,
        reason="Bob: retired too",
    )

    outcome = propagate()

    assert outcome.done == 2  # untouched and the fifth
    assert len(outcome.skipped) == 3
    text = " | ".join(outcome.skipped)
    assert "retired by bob" in text and "Bob: junk" in text and "Bob: retired too" in text
    assert "not shown when you decided" in text
    assert fresh(untouched).no_canonical_record


def test_every_group_decision_locks_its_rows_in_primary_key_order() -> None:
    source, *_ = _decided_sources(3)
    with CaptureQueriesContext(connection) as queries:
        _propagate(source, ALICE)()
    locks = [
        q["sql"]
        for q in queries.captured_queries
        if 'FOR UPDATE OF "curation_observation"' in q["sql"]
    ]
    # The first statement locks every row the propagation may write; later ones (the standing
    # notices following the new link) only re-lock rows already held, in the same order.
    assert '"curation_observation"."normalized_text" =' in locks[0]
    assert all('ORDER BY "curation_observation"."id" ASC FOR UPDATE OF' in sql for sql in locks)
