"""What the API answers for objects its selectors do not find: the same 404s as before issue 27."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def nadia() -> APIClient:
    """Return a client for Nadia, who may decide notice reviews (a superuser)."""
    user = get_user_model().objects.create_superuser("nadia", "nadia@example.org", "pw-Xk2!long")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.mark.parametrize("action", ["link", "state"])
def test_a_decision_on_an_unknown_observation_is_404(curator: APIClient, action: str) -> None:
    response = curator.post(
        f"/api/v1/observations/{uuid.uuid4()}/{action}",
        {"status": "unresolved", "arxiv_id": "2412.14374", "reason": "r", "revision": 1},
        format="json",
    )

    assert response.status_code == 404
    assert response.json()["error"] == {
        "status": 404,
        "code": "not_found",
        "detail": {"detail": "No Observation matches the given query."},
    }


def test_a_review_of_an_unknown_notice_event_is_404(nadia: APIClient) -> None:
    response = nadia.post(
        "/api/v1/notice-events/987654/review",
        {"decision": "confirm", "note": "n", "revision": 1},
        format="json",
    )

    assert response.status_code == 404
    assert response.json()["error"]["detail"] == {
        "detail": "No NoticeReview matches the given query."
    }


@pytest.mark.parametrize(
    "path", ["/api/v1/history/cited-works/not-a-number", "/api/v1/history/cited-works/987654"]
)
def test_history_of_an_unknown_cited_work_is_404(
    reader: APIClient, sample: dict[str, Any], path: str
) -> None:
    response = reader.get(path)

    assert response.status_code == 404
    assert response.json()["error"]["detail"] == {
        "detail": f"no cited-works {path.rsplit('/', 1)[1]}"
    }


def test_history_of_a_known_cited_work_lists_its_events(
    reader: APIClient, sample: dict[str, Any]
) -> None:
    works = reader.get("/api/v1/cited-works?page_size=1").json()["results"]
    response = reader.get(f"/api/v1/history/cited-works/{works[0]['id']}")

    assert response.status_code == 200
    assert response.json()["results"], "an imported work has its insert event"
