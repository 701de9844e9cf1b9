"""audited(): no write outside a block, even in an outer transaction; nested blocks keep apart."""

from __future__ import annotations

import io

import pghistory
import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from curation.audit import Actor, audited
from curation.models import Observation, ObservationEvent
from curation.states import ChangeSource

pytestmark = pytest.mark.django_db

ALICE = Actor(name="alice", source=ChangeSource.ADMIN, user_id=7)
BOB = Actor(name="bob", source=ChangeSource.API, user_id=8)


@pytest.fixture
def imported(sample_record_path) -> None:  # type: ignore[no-untyped-def]
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())


def _pin(reference_index: int) -> None:
    Observation.objects.filter(reference_index=reference_index).update(pinned=True)


def _reason_of_update(reference_index: int) -> str:
    event = ObservationEvent.objects.select_related("pgh_context").get(
        pgh_label="update", reference_index=reference_index
    )
    return str(event.pgh_context.metadata["reason"])


def _pinned() -> set[int]:
    return set(Observation.objects.filter(pinned=True).values_list("reference_index", flat=True))


def test_write_after_the_block_in_the_same_transaction_is_refused(imported: None) -> None:
    with transaction.atomic():
        with audited(ALICE, "reference 1 checked"):
            _pin(1)
        with pytest.raises(IntegrityError, match="event_has_context"), transaction.atomic():
            _pin(2)
        with pytest.raises(IntegrityError, match="event_has_context"), transaction.atomic():
            with connection.cursor() as cursor:  # raw SQL is refused the same way
                cursor.execute("UPDATE curation_observation SET pinned = true")
    assert _pinned() == {1}
    assert _reason_of_update(1) == "reference 1 checked"


def test_write_after_a_block_that_failed_in_a_savepoint_is_refused(imported: None) -> None:
    with transaction.atomic():
        with pytest.raises(IntegrityError), transaction.atomic(), audited(ALICE, "two pins"):
            _pin(1)
            with connection.cursor() as cursor:  # the transaction is aborted when the block ends
                cursor.execute("UPDATE curation_observation SET reference_index = NULL")
        with pytest.raises(IntegrityError, match="event_has_context"), transaction.atomic():
            _pin(3)
    assert _pinned() == set()


def test_write_after_a_block_left_by_an_exception_is_refused(imported: None) -> None:
    with transaction.atomic():
        with pytest.raises(RuntimeError), audited(ALICE, "pin then give up"):
            _pin(1)
            raise RuntimeError("the caller changed its mind")
        with pytest.raises(IntegrityError, match="event_has_context"), transaction.atomic():
            _pin(2)
    assert _pinned() == {1}


def test_a_nested_block_has_its_own_context_and_gives_the_outer_one_back(imported: None) -> None:
    with transaction.atomic(), audited(ALICE, "outer review"):
        _pin(1)
        with audited(BOB, "inner fix"):
            _pin(2)
        _pin(3)

    assert [_reason_of_update(i) for i in (1, 2, 3)] == [
        "outer review",
        "inner fix",
        "outer review",
    ]
    outer = ObservationEvent.objects.get(pgh_label="update", reference_index=1).pgh_context
    inner = ObservationEvent.objects.get(pgh_label="update", reference_index=2).pgh_context
    assert outer.pk != inner.pk
    assert outer.metadata["actor"] == "alice" and inner.metadata["actor"] == "bob"


def test_a_nested_block_with_the_same_actor_and_reason_joins_the_outer_context(
    imported: None,
) -> None:
    with audited(ALICE, "one decision"):
        _pin(1)
        with audited(ALICE, "one decision"):  # a service that calls another service
            _pin(2)
    contexts = set(
        ObservationEvent.objects.filter(pgh_label="update").values_list("pgh_context", flat=True)
    )
    assert len(contexts) == 1


def test_extra_context_metadata_joins_the_block(imported: None) -> None:
    with audited(ALICE, "bulk pin"), pghistory.context(bulk_action="pin"):
        with audited(ALICE, "bulk pin"):
            _pin(1)
    event = ObservationEvent.objects.select_related("pgh_context").get(pgh_label="update")
    assert event.pgh_context.metadata["bulk_action"] == "pin"
    assert event.pgh_context.metadata["reason"] == "bulk pin"


def test_a_recorded_context_cannot_be_given_other_metadata(imported: None) -> None:
    recorded = ObservationEvent.objects.select_related("pgh_context").first()
    assert recorded is not None
    context_id = str(recorded.pgh_context.pk)
    with pytest.raises(IntegrityError, match="recorded with other metadata"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT set_config('pghistory.context_id', %s, true), "
                "set_config('pghistory.context_metadata', '{\"reason\": \"forged\"}', true)",
                [context_id],
            )
            cursor.execute("UPDATE curation_observation SET pinned = true")
    recorded.pgh_context.refresh_from_db()
    assert recorded.pgh_context.metadata["reason"] == "import of citation records"


def test_actor_for_user_and_for_task_name_who_acted() -> None:
    class User:
        pk = 42

        def get_username(self) -> str:
            return "carol"

    class Request:
        id = "task-id-1"

    class Task:
        name = "curation.resolution.tasks.chunk_resolve"
        request = Request()

    assert Actor.for_user(User(), ChangeSource.API) == Actor(
        name="user:carol", source=ChangeSource.API, user_id=42
    )
    assert Actor.for_user(User(), ChangeSource.ADMIN).source is ChangeSource.ADMIN
    assert Actor.for_task(Task()) == Actor(
        name="task:curation.resolution.tasks.chunk_resolve",
        source=ChangeSource.TASK,
        task_id="task-id-1",
    )
