"""The admin is up: every curated model is registered, listed and searchable."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from curation.models import Observation

pytestmark = pytest.mark.django_db

MODELS = [
    "paper",
    "observation",
    "resolution",
    "standingnotice",
    "citedwork",
    "externalcitationmeasurement",
    "standingsource",
]


@pytest.fixture
def admin_client(sample_record_path) -> Client:  # type: ignore[no-untyped-def]
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    user = get_user_model().objects.create_superuser("root", "root@example.org", "pw-Xk2!long")
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("model", MODELS)
def test_every_model_lists_and_searches(admin_client: Client, model: str) -> None:
    assert admin_client.get(f"/admin/curation/{model}/").status_code == 200
    assert admin_client.get(f"/admin/curation/{model}/", {"q": "2412.14374"}).status_code == 200


def test_observation_search_finds_by_title(admin_client: Client) -> None:
    response = admin_client.get("/admin/curation/observation/", {"q": "write newline"})
    assert response.status_code == 200
    assert "write newline" in response.content.decode()


def test_observation_page_is_read_only(admin_client: Client) -> None:
    observation = Observation.objects.first()
    assert observation is not None
    url = f"/admin/curation/observation/{observation.pk}/change/"
    assert admin_client.get(url).status_code == 200
    admin_client.post(url, {"work_title": "edited around the services"})
    observation.refresh_from_db()
    assert observation.work_title != "edited around the services"


def test_anonymous_users_are_sent_to_login() -> None:
    response = Client().get("/admin/curation/observation/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
