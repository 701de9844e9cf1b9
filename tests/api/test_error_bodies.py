"""Every API error is JSON: a body too large, too many parameters, JSON nested too deeply, a
server error. Outside the API, Django's own pages stay."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from curation.models import Observation

pytestmark = pytest.mark.django_db

NESTED = "[" * 100_000 + "]" * 100_000
MANY_PARAMETERS = "&".join(f"p{i}=1" for i in range(1_200))  # Django refuses past 1,000


def error(response: Any) -> dict[str, Any]:
    """Return the API error document of a response, checking that it is one."""
    assert response["Content-Type"] == "application/json", response.content[:200]
    body = response.json()["error"]
    assert body["status"] == response.status_code
    return body  # type: ignore[no-any-return]


@pytest.fixture
def junk(sample: dict[str, Any]) -> Observation:
    """Return reference 33 of the sample, the BibTeX artefact "write newline"."""
    return Observation.objects.get(work_title="write newline")


def test_json_nested_too_deeply_is_a_bad_request_on_every_posting_endpoint(
    curator: APIClient, junk: Observation
) -> None:
    curator.raise_request_exception = False
    revision = junk.revision
    for path in ("/api/v1/ingestions", f"/api/v1/observations/{junk.pk}/state"):
        response = curator.post(path, NESTED, content_type="application/json")

        assert response.status_code == 400, path
        assert "nested too deeply" in error(response)["detail"]["detail"]
    junk.refresh_from_db()
    assert junk.revision == revision  # nothing written


def test_a_body_past_the_upload_limit_is_a_json_400(curator: APIClient, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    big = '{"arxiv_ids": ["' + "x" * 2_000 + '"]}'

    for body, kind in (
        (big, "application/json"),
        ("a=" + "x" * 2_000, "application/x-www-form-urlencoded"),
    ):
        response = curator.post("/api/v1/ingestions", body, content_type=kind)

        assert response.status_code == 400
        assert error(response)["code"] == "request_too_large"


def test_more_parameters_than_allowed_is_a_json_400(anon: APIClient) -> None:
    response = anon.get(f"/api/v1/papers?{MANY_PARAMETERS}")

    assert response.status_code == 400
    assert error(response)["code"] == "too_many_parameters"


def test_an_uncaught_error_is_a_json_500_under_the_api_and_a_page_elsewhere(
    anon: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("api.views.root.check_query_params", broken)
    anon.raise_request_exception = False

    response = anon.get("/api/v1/")

    assert response.status_code == 500
    assert error(response)["code"] == "server_error"
    assert "a bug" not in response.content.decode()


def test_pages_outside_the_api_keep_django_s_html_answers(client: Any) -> None:
    response = client.get(f"/admin/login/?{MANY_PARAMETERS}")

    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
