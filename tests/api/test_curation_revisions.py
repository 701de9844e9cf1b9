"""API decisions name the revision their author saw: 428 without one, If-Match accepted, a stale
one is a 409 typed as the committed OpenAPI schema says, and two curators racing have one winner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from curation.models import Observation
from tests.races import race

OPENAPI = Path(__file__).resolve().parents[2] / "api" / "openapi.yaml"


@pytest.fixture
def junk(sample: dict[str, Any]) -> Observation:
    """Return reference 33 of the sample, the BibTeX artefact "write newline"."""
    return Observation.objects.get(work_title="write newline")


def curator_named(name: str) -> APIClient:
    user = get_user_model().objects.create_user(name, f"{name}@example.org", "pw-Xk2!long")
    user.groups.add(Group.objects.get_or_create(name="Curators")[0])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def post(client: APIClient, observation: Observation, endpoint: str, **kwargs: Any) -> Any:
    headers = {k: kwargs.pop(k) for k in list(kwargs) if k.startswith("HTTP_")}
    return client.post(
        f"/api/v1/observations/{observation.pk}/{endpoint}", kwargs, format="json", **headers
    )


def stored(observation: Observation) -> Observation:
    return Observation.objects.select_related("resolution").get(pk=observation.pk)


def schema_of_409() -> dict[str, Any]:
    """Return the committed OpenAPI schema of the link endpoint's 409 body, refs resolvable."""
    document = yaml.safe_load(OPENAPI.read_text())
    response = document["paths"]["/api/v1/observations/{id}/link"]["post"]["responses"]["409"]
    schema = response["content"]["application/json"]["schema"]
    return {**schema, "components": document["components"]}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("endpoint", "body"),
    [
        ("link", {"arxiv_id": "1604.06174", "reason": "the right paper"}),
        ("state", {"status": "parse_uncertain", "reason": "artefact"}),
    ],
)
def test_a_decision_without_a_revision_is_428_and_changes_nothing(
    curator: APIClient, junk: Observation, endpoint: str, body: dict[str, Any]
) -> None:
    response = post(curator, junk, endpoint, **body)

    assert response.status_code == 428
    assert response.json()["error"]["code"] == "revision_required"
    assert stored(junk).revision == junk.revision and not stored(junk).pinned


@pytest.mark.django_db
@pytest.mark.parametrize("header", ['"{n}"', 'W/"{n}"', "{n}"])
def test_if_match_names_the_revision(curator: APIClient, junk: Observation, header: str) -> None:
    response = post(
        curator,
        junk,
        "state",
        status="parse_uncertain",
        reason="artefact",
        HTTP_IF_MATCH=header.format(n=junk.revision),
    )

    assert response.status_code == 200, response.content
    assert response.json()["revision"] == junk.revision + 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("header", "revision"), [('"abc"', None), ('"0"', None), ('"1"', 2)], ids=str
)
def test_an_unreadable_or_contradicting_if_match_is_400(
    curator: APIClient, junk: Observation, header: str, revision: int | None
) -> None:
    body = {"status": "parse_uncertain", "reason": "x", "HTTP_IF_MATCH": header}
    if revision is not None:
        body["revision"] = revision
    assert post(curator, junk, "state", **body).status_code == 400
    assert stored(junk).revision == junk.revision


@pytest.mark.django_db
def test_a_stale_if_match_is_a_409_saying_who_when_why_typed_as_the_schema(
    curator: APIClient, junk: Observation
) -> None:
    assert (
        post(
            curator,
            junk,
            "state",
            status="unresolved",
            reason="carla: first",
            revision=junk.revision,
        ).status_code
        == 200
    )
    response = post(
        curator_named("dave"),
        junk,
        "link",
        arxiv_id="1604.06174",
        reason="dave: stale",
        HTTP_IF_MATCH=f'"{junk.revision}"',
    )

    assert response.status_code == 409
    body = response.json()
    jsonschema.validate(body, schema_of_409())
    detail = body["error"]["detail"]
    assert (
        detail["current_revision"] == junk.revision + 1
        and detail["expected_revision"] == junk.revision
    )
    assert (detail["changed_by"], detail["reason"], detail["change_source"]) == (
        "user:carla",
        "carla: first",
        "api",
    )
    assert detail["changed_at"]
    assert stored(junk).cited_paper is None and stored(junk).resolution.status == "unresolved"


@pytest.mark.django_db(transaction=True)
def test_two_curators_deciding_at_once_through_the_api_have_one_winner(junk: Observation) -> None:
    carla, dave = curator_named("carla"), curator_named("dave")
    results = race(
        lambda: post(
            carla, junk, "state", status="parse_uncertain", reason="carla", revision=junk.revision
        ),
        lambda: post(
            dave, junk, "link", arxiv_id="1604.06174", reason="dave", revision=junk.revision
        ),
    )

    statuses = sorted(r.status_code for r in results)
    assert statuses == [200, 409], [r.content for r in results]
    winner = next(r for r in results if r.status_code == 200).json()
    loser = next(r for r in results if r.status_code == 409).json()["error"]["detail"]
    assert loser["changed_by"] == f"user:{'carla' if winner['cited_paper'] is None else 'dave'}"
    assert loser["current_revision"] == junk.revision + 1 == stored(junk).revision
