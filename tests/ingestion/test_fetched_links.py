"""Fetch a work the catalogues lack and link it in one step (curation/ingestion/services/fetched_links.py):
from the fake arXiv and a fake Crossref (pytest-httpserver), never the internet. A failure of the
source, an unknown work, offline mode or a stale revision saves nothing at all."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest
from django.utils import timezone
from pytest_httpserver import HTTPServer

from curation.audit import Actor
from curation.clients.crossref import CrossrefClient
from curation.clients.crossref.cache import MemoryCache
from curation.clients.crossref.throttle import LocalThrottle
from curation.ingestion.services.fetched_links import (
    FetchFailed,
    FetchOffline,
    FetchRefused,
    observation_fetch_and_link,
)
from curation.models import Observation, Paper
from curation.resolution.models import CrossrefWork
from curation.services import reference_list_import
from curation.services.observations import StaleRevision
from tests.admin.conftest import IMPORTER, Listed
from tests.admin.helpers import last_context
from tests.clients.arxiv import conftest as arxiv_fixtures
from tests.clients.arxiv.fake_arxiv import FakeArxiv

fake_arxiv = arxiv_fixtures.fake_arxiv  # the fixture, for this module
pytestmark = pytest.mark.django_db
ALICE = Actor.command("alice-test")
GPT4 = "2303.08774"


@pytest.fixture
def reference(db: Any) -> Observation:
    """Return a reference to GPT-4's report, which the local catalogue lacks."""
    now = timezone.now()
    Paper.objects.create(arxiv_id="2501.09999", title="Citing", submitted_at=now, last_updated=now, latest_version=1)
    reference_list_import(
        arxiv_id="2501.09999",
        references=[Listed(1, "1", "OpenAI. GPT-4 Technical Report. arXiv:2303.08774, 2023.")],
        actor=IMPORTER,
        reason="test reference list",
    )
    return Observation.objects.get(paper__arxiv_id="2501.09999")


def crossref(httpserver: HTTPServer, **kwargs: Any) -> CrossrefClient:
    """Return a Crossref client on the fake server: no real waits, no shared cache."""
    kwargs.setdefault("base_url", httpserver.url_for("/"))
    return CrossrefClient(
        offline=False, max_retries=1, throttle=LocalThrottle(1000, sleep=lambda s: None),
        cache=MemoryCache(), sleep=lambda s: None, **kwargs,
    )  # fmt: skip


def link(observation: Observation, identifier: tuple[str, str], **clients: Any) -> Observation:
    return observation_fetch_and_link(
        observation=observation, identifier=identifier, expected_revision=observation.revision,
        actor=ALICE, reason="the GPT-4 report", **clients,
    )  # fmt: skip


def unchanged(observation: Observation) -> bool:
    now = Observation.objects.get(pk=observation.pk)
    return now.revision == observation.revision and now.cited_paper_id is None


def test_a_missing_arxiv_paper_is_fetched_stored_and_linked(reference: Observation, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_record(GPT4, title="GPT-4 Technical Report", authors="OpenAI", categories="cs.CL")
    after = link(reference, ("arxiv", GPT4), arxiv=fake_arxiv.client())
    paper = Paper.objects.get(arxiv_id=GPT4)
    assert paper.title == "GPT-4 Technical Report" and paper.in_catalogue
    stored = Observation.objects.select_related("resolution").get(pk=reference.pk)
    assert stored.cited_paper_id == paper.pk and stored.revision == after.revision == reference.revision + 1
    assert (stored.resolution.status, stored.resolution.resolver_source) == ("verified_exact", "local_arxiv")
    assert last_context(stored)["reason"] == "the GPT-4 report"
    assert fake_arxiv.count("oai") == 1


def test_a_known_paper_is_linked_without_asking_arxiv(reference: Observation, fake_arxiv: FakeArxiv) -> None:
    now = timezone.now()
    Paper.objects.create(arxiv_id=GPT4, title="GPT-4 Technical Report", in_catalogue=True,
                         submitted_at=now, last_updated=now, latest_version=1)  # fmt: skip
    link(reference, ("arxiv", GPT4), arxiv=fake_arxiv.client())
    assert Observation.objects.get(pk=reference.pk).cited_paper.arxiv_id == GPT4
    assert fake_arxiv.count() == 0


def test_arxiv_unreachable_saves_nothing(reference: Observation, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_record(GPT4, title="GPT-4 Technical Report")
    fake_arxiv.fail_next(503, times=5)
    with pytest.raises(FetchFailed, match="arXiv could not be reached"):
        link(reference, ("arxiv", GPT4), arxiv=fake_arxiv.client(max_retries=1))
    assert not Paper.objects.filter(arxiv_id=GPT4).exists() and unchanged(reference)


def test_a_paper_arxiv_does_not_have_is_refused(reference: Observation, fake_arxiv: FakeArxiv) -> None:
    with pytest.raises(FetchRefused, match="arXiv has no such paper") as refused:
        link(reference, ("arxiv", GPT4), arxiv=fake_arxiv.client())
    assert not refused.value.retry
    assert not Paper.objects.filter(arxiv_id=GPT4).exists() and unchanged(reference)


def test_offline_asks_nobody_and_says_so(reference: Observation, fake_arxiv: FakeArxiv, settings: Any) -> None:
    settings.CITEREC_OFFLINE = True
    fake_arxiv.add_record(GPT4, title="GPT-4 Technical Report")
    with pytest.raises(FetchOffline, match="offline"):
        link(reference, ("arxiv", GPT4))
    with pytest.raises(FetchOffline, match="Crossref was not asked"):
        link(reference, ("doi", "10.5555/offline.1"))
    assert fake_arxiv.count() == 0 and unchanged(reference)


def test_a_stale_link_leaves_no_catalogue_entry_either(reference: Observation, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_record(GPT4, title="GPT-4 Technical Report")
    with pytest.raises(StaleRevision):
        observation_fetch_and_link(
            observation=reference, identifier=("arxiv", GPT4), expected_revision=reference.revision + 5,
            actor=ALICE, reason="seen on another revision", arxiv=fake_arxiv.client(),
        )  # fmt: skip
    assert not Paper.objects.filter(arxiv_id=GPT4).exists() and unchanged(reference)


def test_a_missing_doi_is_fetched_from_crossref_and_linked(reference: Observation, httpserver: HTTPServer) -> None:
    doi = f"10.5555/{uuid.uuid4().hex[:8]}"
    work = {"DOI": doi.upper(), "title": ["GPT-4 Technical Report"], "type": "report"}
    httpserver.expect_request(f"/works/{doi}").respond_with_json({"status": "ok", "message": work})
    link(reference, ("doi", doi), crossref=crossref(httpserver))
    assert CrossrefWork.objects.get(doi=doi).title == "GPT-4 Technical Report"
    stored = Observation.objects.select_related("resolution").get(pk=reference.pk)
    assert stored.work_doi == doi and stored.resolution.resolver_source == "doi"
    assert stored.resolution.status == "verified_exact"


def test_crossref_unreachable_or_timing_out_saves_nothing(reference: Observation, httpserver: HTTPServer) -> None:
    doi = f"10.5555/{uuid.uuid4().hex[:8]}"
    httpserver.expect_request(f"/works/{doi}").respond_with_data("busy", status=503)
    with pytest.raises(FetchFailed, match="Crossref could not be reached"):
        link(reference, ("doi", doi), crossref=crossref(httpserver))

    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectTimeout("timed out", request=request)

    with pytest.raises(FetchFailed, match="timeout"):
        link(reference, ("doi", doi), crossref=crossref(httpserver, transport=httpx.MockTransport(timeout)))
    assert not CrossrefWork.objects.filter(doi=doi).exists() and unchanged(reference)


def test_a_doi_crossref_does_not_know_is_refused(reference: Observation, httpserver: HTTPServer) -> None:
    doi = f"10.5555/{uuid.uuid4().hex[:8]}"
    httpserver.expect_request(f"/works/{doi}").respond_with_data(json.dumps({"status": "error"}), status=404)
    with pytest.raises(FetchRefused, match="Crossref does not know it"):
        link(reference, ("doi", doi), crossref=crossref(httpserver))
    assert not CrossrefWork.objects.filter(doi=doi).exists() and unchanged(reference)
