"""History: every change is recorded by triggers with its context; history is append-only."""

from __future__ import annotations

import io

import pghistory.models
import pytest
from django.core.management import call_command
from django.db import IntegrityError, ProgrammingError, transaction

from curation.audit import Actor, MissingReason, audited
from curation.models import Observation, ObservationEvent, ResolutionEvent
from curation.states import ChangeSource

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported(sample_record_path) -> None:  # type: ignore[no-untyped-def]
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())


def test_import_events_carry_the_import_context(imported: None) -> None:
    event = (
        ObservationEvent.objects.filter(pgh_label="insert").select_related("pgh_context").first()
    )
    assert event is not None
    assert event.pgh_context.metadata == {
        "actor": "command:import_records",
        "source": "import",
        "reason": "import of citation records",
        "user": None,
        "task_id": None,
    }


def test_queryset_update_is_recorded_with_its_context(imported: None) -> None:
    actor = Actor(name="alice", source=ChangeSource.ADMIN, user_id=7)
    with audited(actor, "reference 33 is a BibTeX artefact"):
        updated = Observation.objects.filter(work_title="write newline").update(pinned=True)

    assert updated == 1
    event = ObservationEvent.objects.filter(pgh_label="update").select_related("pgh_context").get()
    assert event.pinned is True and event.work_title == "write newline"
    assert event.pgh_context.metadata["actor"] == "alice"
    assert event.pgh_context.metadata["user"] == 7
    assert event.pgh_context.metadata["reason"] == "reference 33 is a BibTeX artefact"
    assert event.pgh_context.metadata["source"] == "admin"


# A real transaction: pghistory's context is SET LOCAL, so inside the one transaction of a plain
# test the import's context would still be in force.
@pytest.mark.django_db(transaction=True)
def test_write_without_audit_context_is_refused(imported: None) -> None:
    with pytest.raises(IntegrityError, match="event_has_context"), transaction.atomic():
        Observation.objects.filter(reference_index=1).update(pinned=True)
    assert not Observation.objects.filter(pinned=True).exists()


def test_change_without_reason_is_refused() -> None:
    with pytest.raises(MissingReason):
        with audited(Actor.command("test"), "  "):
            pass


@pytest.mark.parametrize("operation", ["update", "delete"])
def test_history_cannot_be_edited(imported: None, operation: str) -> None:
    events = ResolutionEvent.objects.all()
    with pytest.raises(ProgrammingError, match="Cannot update or delete"), transaction.atomic():
        if operation == "update":
            events.update(status="verified_exact")
        else:
            events.delete()
    assert ResolutionEvent.objects.count() == 33


def test_context_rows_are_kept(imported: None) -> None:
    assert pghistory.models.Context.objects.count() == 1
