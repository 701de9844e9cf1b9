"""No admin list counts a whole large table: above the exact-count threshold every list of a
table that grows with arXiv (papers, resolutions, notices, cited works, Crossref works,
ingestions, receipts, notice events) pages on the planner's estimate, as the work queue does.

Measured at 10 million references (bench/README-scale.md): the resolutions list spent most of
its time in `SELECT COUNT(*) FROM curation_resolution` for its page numbers, although
`show_full_result_count = False` already spared the "N results" count.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

import curation.selectors
from curation.models import Resolution

pytestmark = pytest.mark.django_db

LISTS = [
    "curation/paper",
    "curation/resolution",
    "curation/standingnotice",
    "curation/citedwork",
    "resolution/crossrefwork",
    "ingestion/paperingestion",
    "notices/noticeevent",
    "notices/sourcereceipt",
]
COUNT = re.compile(r"SELECT COUNT\(\*\)", re.IGNORECASE)


@pytest.fixture
def admin_client(sample_record_path: Any) -> Client:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    user = get_user_model().objects.create_superuser("root", "root@example.org", "pw-Xk2!long")
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("changelist", LISTS)
def test_a_large_list_pages_on_the_estimate_without_counting(
    admin_client: Client,
    changelist: str,
    monkeypatch: pytest.MonkeyPatch,
    django_assert_max_num_queries: Any,
) -> None:
    # Every table counts as large here: the sample's few rows stand for millions.
    monkeypatch.setattr(curation.selectors, "EXACT_COUNT_BELOW", 0)
    with django_assert_max_num_queries(20) as captured:
        response = admin_client.get(f"/admin/{changelist}/")
    assert response.status_code == 200
    counts = [q["sql"] for q in captured.captured_queries if COUNT.search(q["sql"])]
    assert counts == []
    # The estimate was asked instead, and the page still lists (or says it has nothing).
    assert any(q["sql"].startswith("EXPLAIN") for q in captured.captured_queries)


def test_a_small_list_is_counted_exactly(admin_client: Client) -> None:
    response = admin_client.get("/admin/curation/resolution/")
    assert response.status_code == 200
    paginator = response.context["cl"].paginator
    assert paginator.count == Resolution.objects.count() > 0
    assert paginator.estimated is False
