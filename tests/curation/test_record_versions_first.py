"""Writes that change many records bump them first, in paper order (curation/record_versions.py),
so two such transactions sharing a record wait for each other instead of deadlocking."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection, transaction

from curation.audit import Actor, audited
from curation.models import Paper
from curation.record.models import RecordVersion
from curation.record_versions import records_bumped_first
from tests.conftest import database_url

pytestmark = pytest.mark.django_db(transaction=True)


def _papers(count: int) -> list[int]:
    with audited(Actor.command("tests"), "papers"):
        return [Paper.objects.create(arxiv_id=f"2501.0000{n}", title=f"P{n}").pk for n in range(count)]


def test_each_record_is_bumped_once_and_held_until_commit() -> None:
    first, second, third = _papers(3)
    with audited(Actor.command("tests"), "bump"):
        records_bumped_first([first, None, third])
    before = {v.paper_id: v.version for v in RecordVersion.objects.all()}
    assert set(before) == {first, third}  # a record that had no version row gets one

    with transaction.atomic(), audited(Actor.command("tests"), "bump"):
        records_bumped_first([third, first, third, second])
        # Another session cannot take any of them now: they are held until this commits.
        with psycopg.connect(database_url(connection.settings_dict["NAME"])) as other:
            for paper in (first, third):
                with pytest.raises(psycopg.errors.LockNotAvailable):
                    other.execute(
                        "SELECT 1 FROM record_recordversion WHERE paper_id = %s FOR UPDATE NOWAIT",
                        [paper],
                    )
                other.rollback()
    after = {v.paper_id: v.version for v in RecordVersion.objects.all()}
    assert after == {first: before[first] + 1, second: 1, third: before[third] + 1}
