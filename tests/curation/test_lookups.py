"""`field__any`: the same rows as `__in`, with the list sent as one array parameter."""

from __future__ import annotations

import io
import uuid

import pytest
from django.core.management import call_command

from curation.models import Observation, Paper
from curation.notices.models import SourceReceipt

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported(sample_record_path) -> None:  # type: ignore[no-untyped-def]
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())


def test_any_finds_what_in_finds_for_each_kind_of_column(imported: None) -> None:
    observations = list(Observation.objects.order_by("pk")[:7])
    ids = [o.pk for o in observations] + [uuid.uuid4()]  # UUIDs, one unknown
    assert list(Observation.objects.filter(pk__any=ids).order_by("pk")) == observations
    as_text = [str(i) for i in ids]
    assert list(Observation.objects.filter(pk__any=as_text).order_by("pk")) == observations
    papers = {o.paper_id for o in observations}  # a foreign key's column (bigint)
    assert set(Observation.objects.filter(paper_id__any=papers)) == set(
        Observation.objects.filter(paper_id__in=papers)
    )
    arxiv = list(Paper.objects.values_list("arxiv_id", flat=True)[:3])  # a text column
    assert sorted(Paper.objects.filter(arxiv_id__any=arxiv).values_list("arxiv_id", flat=True)) == (
        sorted(arxiv)
    )


def test_any_of_nothing_matches_nothing(imported: None) -> None:
    assert not Observation.objects.filter(pk__any=[]).exists()
    assert not SourceReceipt.objects.filter(work_id__any=set()).exists()


def test_any_sends_one_parameter_whatever_the_list_length() -> None:
    ids = [uuid.uuid4() for _ in range(300)]
    sql, params = Observation.objects.filter(pk__any=ids).query.sql_with_params()
    assert "= ANY(%s::uuid[])" in sql and " IN (" not in sql
    assert params == ([str(i) for i in ids],)


def test_any_refuses_a_column_it_has_no_array_type_for() -> None:
    with pytest.raises(TypeError, match="__any is not defined for DateTimeField"):
        str(Observation.objects.filter(changed_at__any=[]).query)
