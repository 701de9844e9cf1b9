"""Readers see why an ingestion failed in public words; staff see the details (the error text
names endpoints and exceptions). A paper arXiv does not know, whose ingestion failed, has no
record page: 404, saying why."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from curation.ingestion.models import IngestionState, PaperIngestion
from curation.models import Paper
from tests.ingestion.conftest import add_papers

pytestmark = pytest.mark.django_db

UNKNOWN = "2401.99999"
KNOWN = "2412.14374"  # the sample record
INTERNAL = "ArxivUnavailable: https://oaipmh.arxiv.org/oai?verb=GetRecord answered 503 three times"


@pytest.fixture
def failed_known_paper(sample_record_path: Any) -> PaperIngestion:
    """Return a failed ingestion of the sample's paper, whose error names arXiv's endpoint."""
    from django.core.management import call_command

    call_command("import_records", str(sample_record_path), verbosity=0)
    return PaperIngestion.objects.create(
        paper=Paper.objects.get(arxiv_id=KNOWN), state=IngestionState.FAILED, error=INTERNAL,
        requested_at=timezone.now(),
    )  # fmt: skip


def test_an_unknown_paper_whose_ingestion_failed_has_no_record_page(fake_arxiv: Any) -> None:
    add_papers(UNKNOWN)  # the fake arXiv has no such paper
    assert PaperIngestion.objects.get(paper__arxiv_id=UNKNOWN).state == IngestionState.FAILED

    response = Client().get(f"/paper/{UNKNOWN}/citation-record")

    assert response.status_code == 404
    assert f"arXiv has no paper {UNKNOWN}" in response.content.decode()


def test_the_record_page_gives_a_public_reason_not_the_internal_error(
    failed_known_paper: PaperIngestion,
) -> None:
    page = Client().get(f"/paper/{KNOWN}/citation-record")

    assert page.status_code == 200
    text = page.content.decode()
    assert "could not be read from arXiv" in text
    assert "oaipmh" not in text and "ArxivUnavailable" not in text


def test_the_api_gives_readers_the_public_reason_and_staff_the_details(
    failed_known_paper: PaperIngestion,
) -> None:
    staff = APIClient()
    staff.force_authenticate(get_user_model().objects.create_user("sam", is_staff=True))

    public = APIClient().get(f"/api/v1/ingestions/{KNOWN}").json()
    detailed = staff.get(f"/api/v1/ingestions/{KNOWN}").json()

    assert public["state"] == "failed" and "oaipmh" not in public["error"]
    assert "could not be read from arXiv" in public["error"]
    assert detailed["error"] == INTERNAL
