"""The pages of a paper read it in a fixed number of SQL statements, whatever its size.

Each page is asked uncached (the built report and page caches cleared) for a paper of 6 and of
60 references: a statement per reference or per row (an N+1) would show as a higher count.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from api import page_cache
from curation.audit import Actor
from curation.models import Paper
from curation.record.canonical import observation_digest
from curation.services import record_import
from tests import records_factory as rf

pytestmark = pytest.mark.django_db

SMALL, LARGE = "2504.00006", "2504.00060"
STATES = (
    "unresolved",
    "metadata_mismatch",
    "malformed_identifier",
    "parse_uncertain",
    "verified_exact",
)
# Statements per request: the record version, the paper's key, the rows (the page: the paper).
INTEGRITY_PAGE, INTEGRITY_JSON = 4, 3
# Session, user, the planner's estimate of the word's matches (curation/selectors.py
# `text_condition`), the planner's estimate of the list, the count, the rows.
ADMIN_SEARCH = 6
# The record version (the page's cache marker), the paper's key, the rows.
API_PAGE = 3


def _reference(citing: str, index: int) -> dict[str, Any]:
    item = rf.observation(
        citing, index, status=STATES[index % len(STATES)], title=f"Github study {index}"
    )
    if index % 3 == 0:  # a source reports a retraction
        item["standing_notice"]["events"] = [
            {
                "date": "2024-05-01",
                "notice_doi": f"10.5555/retraction.{index}",
                "notice_url": None,
                "reasons": ["test"],
                "source": "crossref",
                "source_record_id": None,
                "type": "retraction",
            }
        ]
        item["standing_notice"].pop("observation")
    item["citation"]["cited_work"]["doi"] = f"10.5555/study.{index}"
    item["observation_digest"] = observation_digest(item)
    return item


@pytest.fixture
def papers() -> None:
    """Store a paper of 6 and one of 60 references (states, retractions and DOIs mixed)."""
    for citing, size in ((SMALL, 6), (LARGE, 60)):
        document = rf.record(citing, [_reference(citing, i) for i in range(1, size + 1)])
        record_import(document=document, actor=Actor.command("test"), reason="query counts")


def _uncached() -> None:
    for alias in caches:
        caches[alias].clear()
    page_cache._local.clear()
    page_cache._memo.clear()


def _statements(
    assert_max: Callable[..., Any], client: Client, url: str, most: int
) -> tuple[bytes, list[str]]:
    """Return the uncached answer's body and its statements, failing past `most` statements."""
    _uncached()
    with assert_max(most) as captured:
        response = client.get(url)
        statements = [q["sql"] for q in captured.captured_queries]
    assert response.status_code == 200, response.content[:500]
    return bytes(response.content), statements


@pytest.mark.parametrize("arxiv_id", [SMALL, LARGE])
def test_the_integrity_page_and_json_read_a_paper_in_fixed_statements(
    papers: None, django_assert_max_num_queries: Any, arxiv_id: str
) -> None:
    client = Client()
    url = f"/paper/{arxiv_id}/integrity"
    page, statements = _statements(django_assert_max_num_queries, client, url, INTEGRITY_PAGE)
    assert page.count(b"reports a retraction") == (2 if arxiv_id == SMALL else 20)
    # The findings never read the resolutions' evidence (the bulk of a reference's data).
    assert not any("evidence" in sql for sql in statements)
    _statements(django_assert_max_num_queries, client, f"{url}.json", INTEGRITY_JSON)


@pytest.mark.parametrize("arxiv_id", [SMALL, LARGE])
def test_the_papers_observations_api_reads_a_page_in_fixed_statements(
    papers: None, django_assert_max_num_queries: Any, arxiv_id: str
) -> None:
    body, statements = _statements(
        django_assert_max_num_queries, Client(), f"/api/v1/observations?paper={arxiv_id}", API_PAGE
    )
    assert len(json.loads(body)["results"]) == (6 if arxiv_id == SMALL else 50)
    # The rows are asked by the paper's key: PostgreSQL then reads the page in reference order
    # (through the join alone it sorted every reference of a large paper for each page).
    pk = Paper.objects.get(arxiv_id=arxiv_id).pk
    assert any(f'"curation_observation"."paper_id" = {pk}' in sql for sql in statements)


@pytest.mark.parametrize("term", ["github", "study", "10.5555/study.3"])
def test_the_admin_search_reads_a_page_in_fixed_statements(
    papers: None, django_assert_max_num_queries: Any, term: str
) -> None:
    user = get_user_model().objects.create_superuser("root", "root@example.org", "pw-Xk2!long")
    client = Client()
    client.force_login(user)
    _statements(
        django_assert_max_num_queries,
        client,
        f"/admin/curation/observation/?queue=live&q={term}",
        ADMIN_SEARCH,
    )


@pytest.mark.parametrize("few", [True, False])
def test_a_word_search_reads_few_matches_through_the_search_index_first(
    papers: None, monkeypatch: pytest.MonkeyPatch, few: bool
) -> None:
    """Few matches: the ids come from a subquery the planner cannot fold back into the queue's
    ordered walk (which evaluated the search expression row after row: bench/README-scale.md).
    Many: the plain condition. The same references are found either way."""
    from curation import selectors

    if not few:
        monkeypatch.setattr(selectors, "INDEX_FIRST_BELOW", 0)
    user = get_user_model().objects.create_superuser("root", "root@example.org", "pw-Xk2!long")
    client = Client()
    client.force_login(user)
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/admin/curation/observation/", {"queue": "live", "q": "github"})
    assert response.status_code == 200
    # Every reference of both papers ("Github study N"), the first 50 on the page.
    assert response.context["cl"].result_count == 66
    assert len(response.context["cl"].result_list) == 50
    rows = [q["sql"] for q in captured.captured_queries if "ORDER BY" in q["sql"]][-1]
    assert ("LIMIT 100000)" in rows) is few
