"""The stored time each record last changed (RecordChange, migration record/0003): kept by
triggers whoever writes observations, and filled for the observations already there."""

from __future__ import annotations

import importlib
import io
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from curation.audit import Actor, audited
from curation.models import Observation
from curation.record.models import RecordChange

pytestmark = pytest.mark.django_db

_MIGRATION = importlib.import_module("curation.record.migrations.0003_record_changes")


@pytest.fixture
def sample(sample_record_path: Path) -> None:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())


def _computed() -> dict[int, Any]:
    """Each paper's latest change as the feed computed it before: from the observations."""
    times: dict[int, Any] = {}
    for paper_id, cited_id, changed_at in Observation.objects.values_list(
        "paper_id", "cited_paper_id", "changed_at"
    ):
        for pk in (paper_id, cited_id):
            if pk is not None:
                times[pk] = max(times.get(pk, changed_at), changed_at)
    return times


def _stored() -> dict[int, Any]:
    return dict(RecordChange.objects.values_list("paper_id", "changed_at"))


def test_the_triggers_keep_what_the_observations_say(sample: None) -> None:
    assert _stored() == _computed() != {}


def test_the_migration_fills_the_times_of_observations_already_there(sample: None) -> None:
    later = timezone.now() + timedelta(hours=2)
    with audited(Actor.command("test"), "test"):
        first = Observation.objects.order_by("id").first()
        assert first is not None
        Observation.objects.filter(pk=first.pk).update(changed_at=later)
    RecordChange.objects.all().delete()

    with connection.cursor() as cursor:
        cursor.execute(_MIGRATION.FILL)

    assert _stored() == _computed()
    assert _stored()[first.paper_id] == later
