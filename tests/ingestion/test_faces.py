"""The ways in besides the command: the API (curators ask, anyone reads the state), the admin's
"Add papers" form, and the record page, whose cached copy never hides a new ingestion state."""

from __future__ import annotations

from datetime import UTC
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from curation.ingestion.models import IngestionState, PaperIngestion
from curation.permissions import CURATORS, READ_ONLY_STAFF, ensure_groups
from tests.ingestion.conftest import dev_source

pytestmark = pytest.mark.django_db

PAPER = "2401.00001"


def user(name: str, group: str) -> Any:
    ensure_groups()
    person = get_user_model().objects.create_user(name, f"{name}@example.org", "pw-Xk2!long", is_staff=True)
    person.groups.add(Group.objects.get(name=group))
    return person


def api_as(person: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=person).key}")
    return client


@pytest.fixture
def served(fake_arxiv):  # type: ignore[no-untyped-def]
    fake_arxiv.add_record(PAPER, title="Eyewall replacement")
    fake_arxiv.add_eprint(PAPER, dev_source("Eyewall__2018jas"))
    return fake_arxiv


def test_a_curator_adds_papers_through_the_api_and_anyone_reads_their_state(served, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    curator = api_as(user("carla", CURATORS))
    with django_capture_on_commit_callbacks(execute=True):
        answer = curator.post("/api/v1/ingestions", {"arxiv_ids": [PAPER, "nope/../x"]}, format="json")
    assert answer.status_code == 202
    body = answer.json()
    assert body["queued"] == [PAPER]
    assert body["refused"][0]["given"] == "nope/../x" and "is not an arXiv id" in body["refused"][0]["why"]

    state = APIClient().get(f"/api/v1/ingestions/{PAPER}v1").json()
    assert (state["arxiv_id"], state["state"], state["reference_count"], state["method"]) == (
        PAPER, "done", 19, "bbl-bibitem",
    )  # fmt: skip
    assert APIClient().get("/api/v1/ingestions/2401.77777").status_code == 404


def test_only_curators_add_papers_through_the_api(served) -> None:  # type: ignore[no-untyped-def]
    assert APIClient().post("/api/v1/ingestions", {"arxiv_ids": [PAPER]}, format="json").status_code in (401, 403)
    reader = api_as(user("rita", READ_ONLY_STAFF))
    assert reader.post("/api/v1/ingestions", {"arxiv_ids": [PAPER]}, format="json").status_code == 403
    assert not PaperIngestion.objects.exists()


def test_a_request_of_only_refused_ids_is_a_400_that_creates_nothing(served) -> None:  # type: ignore[no-untyped-def]
    curator = api_as(user("carla", CURATORS))
    answer = curator.post("/api/v1/ingestions", {"arxiv_ids": ["2601.900010"]}, format="json")
    assert answer.status_code == 400
    assert not PaperIngestion.objects.exists()


def test_the_admin_add_papers_form_queues_and_names_what_it_refuses(served, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    admin = Client()
    admin.force_login(user("carla", CURATORS))
    listing = admin.get("/admin/ingestion/paperingestion/").content.decode()
    assert "add-papers/" in listing
    with django_capture_on_commit_callbacks(execute=True):
        page = admin.post(
            "/admin/ingestion/paperingestion/add-papers/",
            {"arxiv_ids": f"{PAPER}\nnot-an-id", "reason": "curators asked"},
            follow=True,
        ).content.decode()
    assert "&#x27;not-an-id&#x27; is not an arXiv id" in page
    assert PaperIngestion.objects.get(paper__arxiv_id=PAPER).state == IngestionState.DONE
    listing = admin.get("/admin/ingestion/paperingestion/").content.decode()
    assert f"arXiv:{PAPER}" in listing and "done: <strong>1</strong>" in listing
    # Its times are written as on every other page: "2026-12-07 13:15 UTC", not "1:15 p.m.".
    finished = PaperIngestion.objects.get(paper__arxiv_id=PAPER).finished_at
    assert finished is not None
    assert finished.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") in listing
    assert "a.m." not in listing and "p.m." not in listing


def test_read_only_staff_cannot_add_papers(served) -> None:  # type: ignore[no-untyped-def]
    admin = Client()
    admin.force_login(user("rita", READ_ONLY_STAFF))
    assert "add-papers/" not in admin.get("/admin/ingestion/paperingestion/").content.decode()
    assert admin.post("/admin/ingestion/paperingestion/add-papers/", {"arxiv_ids": PAPER, "reason": "x"}).status_code == 403
    assert not PaperIngestion.objects.exists()


def test_the_record_page_etag_follows_the_ingestion_state(served, client, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    curator = api_as(user("carla", CURATORS))
    with django_capture_on_commit_callbacks(execute=True):
        curator.post("/api/v1/ingestions", {"arxiv_ids": [PAPER]}, format="json")
    first = client.get(f"/paper/{PAPER}/citation-record")
    assert "Built from the arXiv source" in first.content.decode()
    assert client.get(f"/paper/{PAPER}/citation-record", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304

    PaperIngestion.objects.filter(paper__arxiv_id=PAPER).update(state=IngestionState.FAILED, error="source gone")
    again = client.get(f"/paper/{PAPER}/citation-record", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and "could not be read from arXiv" in again.content.decode()
    assert "source gone" not in again.content.decode()  # the error itself is for staff
