"""Papers (search, filters, detail) and cited works (lookup, citing papers)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from curation.models import CitedWork

pytestmark = pytest.mark.django_db


def _ids(response: Any) -> list[str]:
    return [p["arxiv_id"] for p in response.json()["results"]]


def test_search_by_title_words(anon: APIClient, sample: dict[str, Any]) -> None:
    found = _ids(anon.get("/api/v1/papers", {"search": "mpmd PIPELINE"}))

    assert found == ["2412.14374"]


def test_filter_by_category_and_date(anon: APIClient, sample: dict[str, Any]) -> None:
    category = sample["paper"]["primary_category"]

    assert "2412.14374" in _ids(anon.get("/api/v1/papers", {"category": category}))
    assert _ids(anon.get("/api/v1/papers", {"category": "q-bio.XX"})) == []
    assert "2412.14374" in _ids(anon.get("/api/v1/papers", {"submitted_after": "2024-12-18"}))
    assert "2412.14374" not in _ids(anon.get("/api/v1/papers", {"submitted_before": "2024-12-17"}))
    assert anon.get("/api/v1/papers", {"submitted_after": "18/12/2024"}).status_code == 400


def test_paper_detail_with_etag(anon: APIClient, sample: dict[str, Any]) -> None:
    response = anon.get("/api/v1/papers/2412.14374")

    assert response.status_code == 200
    assert response.json()["links"]["api_record"] == "/api/v1/records/2412.14374"
    assert response["Cache-Control"] == "public, max-age=60"
    again = anon.get("/api/v1/papers/2412.14374", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304
    assert anon.get("/api/v1/papers/2412.99999").json()["error"]["code"] == "not_found"


def test_cited_work_lookup_by_arxiv_id_and_doi(anon: APIClient, sample: dict[str, Any]) -> None:
    by_arxiv = anon.get("/api/v1/cited-works", {"arxiv_id": "1604.06174"}).json()["results"]
    assert len(by_arxiv) == 1 and by_arxiv[0]["citing_observations"] >= 1

    detail = anon.get(f"/api/v1/cited-works/{by_arxiv[0]['id']}").json()
    assert detail["citing_papers"] == ["2412.14374"]

    work = CitedWork.objects.filter(doi__isnull=False).first()
    if work is not None:
        doi = f"https://doi.org/{str(work.doi).upper()}"
        assert [
            w["id"] for w in anon.get("/api/v1/cited-works", {"doi": doi}).json()["results"]
        ] == [work.pk]
    assert anon.get("/api/v1/cited-works/999999").status_code == 404
