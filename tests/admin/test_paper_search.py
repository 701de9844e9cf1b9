"""The papers list searches the catalogue (every arXiv paper) through its indexes: an arXiv id
or a DOI exactly, title words through the title's full-text index, never an ILIKE that reads
every paper (bench/README-scale.md)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from curation.models import Paper

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Client:
    now = timezone.now()
    for arxiv_id, title, doi in (
        ("2301.00001", "Silent data corruption in large training runs", "10.1103/PhysRevD.1.2"),
        ("2301.00002", "Gradient compression at scale", "10.5555/gc.7"),
        ("hep-th/9901001", "Strings on curved backgrounds", ""),
    ):
        Paper(arxiv_id=arxiv_id, title=title, doi=doi, submitted_at=now).save()
    user = get_user_model().objects.create_superuser("root", "root@example.org", "pw-Xk2!long")
    client = Client()
    client.force_login(user)
    return client


def _search(client: Client, term: str) -> tuple[list[str], list[str]]:
    """Return the arXiv ids listed for the search, and the statements it ran."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/admin/curation/paper/", {"q": term})
    assert response.status_code == 200
    listed = [str(p.arxiv_id) for p in response.context["cl"].result_list]
    return listed, [q["sql"] for q in captured.captured_queries]


@pytest.mark.parametrize(
    ("term", "found"),
    [
        ("2301.00002", ["2301.00002"]),
        ("arXiv:2301.00002v3", ["2301.00002"]),
        ("hep-th/9901001", ["hep-th/9901001"]),
        ("https://doi.org/10.5555/GC.7", ["2301.00002"]),
        ("10.1103/PhysRevD.1.2", ["2301.00001"]),
        ("corruption training", ["2301.00001"]),
        ("Gradient", ["2301.00002"]),
        ("nothing like it", []),
    ],
)
def test_the_catalogue_is_searched_through_its_indexes(staff: Client, term: str, found: Any) -> None:
    listed, statements = _search(staff, term)
    assert listed == found
    # Django's search is `UPPER(column) LIKE UPPER('%word%')`: a scan of every paper.
    assert not any(re.search(r"\)\s+LIKE\s", sql) for sql in statements)
