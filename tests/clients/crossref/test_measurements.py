"""External citation measurements: dated, source-named, replaced per source, never summed."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from pytest_httpserver import HTTPServer

from curation.audit import Actor
from curation.clients.crossref.cache import MemoryCache
from curation.clients.crossref.client import CrossrefClient
from curation.models import Paper
from curation.services import record_import
from curation.services.measurements import measure_paper, paper_record_measurement
from tests import records_factory as rf

pytestmark = pytest.mark.django_db

DOI = "10.1145/3600006.3613145"
ACTOR = Actor.command("test")


@pytest.fixture
def paper() -> Paper:
    record_import(
        document=rf.record("2505.00001", [rf.observation("2505.00001", 1)]),
        actor=ACTOR,
        reason="fixture",
    )
    paper = Paper.objects.get(arxiv_id="2505.00001")
    from curation.audit import audited

    with audited(ACTOR, "published DOI from the arXiv snapshot"):
        Paper.objects.filter(pk=paper.pk).update(doi=DOI)
    paper.refresh_from_db()
    return paper


def crossref(httpserver: HTTPServer, offline: bool = False) -> CrossrefClient:
    from curation.clients.crossref.throttle import LocalThrottle

    return CrossrefClient(
        base_url=httpserver.url_for("/"),
        offline=offline,
        timeout=0.5,
        max_retries=0,
        cache=MemoryCache(),
        throttle=LocalThrottle(1000),
        sleep=lambda s: None,
    )


def serve_count(httpserver: HTTPServer, count: int) -> None:
    httpserver.clear()
    httpserver.expect_request(f"/works/{DOI}").respond_with_json(
        {"status": "ok", "message": {"DOI": DOI, "is-referenced-by-count": count}}
    )


def record(client: Client) -> dict:  # type: ignore[type-arg]
    return json.loads(client.get("/paper/2505.00001/citation-record.json").content)  # type: ignore[no-any-return]


def test_crossref_count_appears_in_the_record_with_its_coverage_lane(
    paper: Paper, httpserver: HTTPServer, client: Client
) -> None:
    serve_count(httpserver, 42)

    outcome = measure_paper(paper, actor=ACTOR, client=crossref(httpserver))

    assert outcome.measured
    body = record(client)
    [item] = body["external_citation_measurements"]
    assert (item["source"], item["count"], item["doi"]) == ("crossref", 42, DOI)
    lane = body["coverage"][3]
    assert (lane["lane"], lane["denominator"], lane["records_observed"]) == (
        "external_citation_measurements",
        1,
        1,
    )
    assert lane["source_observed_at"] == item["observed_at"]


def test_a_new_count_replaces_the_source_s_previous_one(
    paper: Paper, httpserver: HTTPServer, client: Client
) -> None:
    serve_count(httpserver, 42)
    measure_paper(paper, actor=ACTOR, client=crossref(httpserver))
    serve_count(httpserver, 50)
    measure_paper(paper, actor=ACTOR, client=crossref(httpserver))

    assert [m["count"] for m in record(client)["external_citation_measurements"]] == [50]


def test_sources_are_never_summed(paper: Paper, httpserver: HTTPServer, client: Client) -> None:
    serve_count(httpserver, 42)
    measure_paper(paper, actor=ACTOR, client=crossref(httpserver))
    from django.utils import timezone

    paper_record_measurement(
        paper=paper,
        source="acme_index",
        count=7,
        doi=DOI,
        observed_at=timezone.now(),
        actor=ACTOR,
        reason="test",
    )

    items = record(client)["external_citation_measurements"]
    assert [(m["source"], m["count"]) for m in items] == [("acme_index", 7), ("crossref", 42)]


@pytest.mark.parametrize("offline", [True, False])
def test_no_answer_stores_nothing(
    paper: Paper, httpserver: HTTPServer, client: Client, offline: bool
) -> None:
    httpserver.expect_request(f"/works/{DOI}").respond_with_data("busy", status=503)

    outcome = measure_paper(paper, actor=ACTOR, client=crossref(httpserver, offline=offline))

    assert not outcome.measured and "Crossref not answered" in outcome.detail
    assert record(client)["external_citation_measurements"] == []


def test_a_paper_without_a_published_doi_is_not_asked(httpserver: HTTPServer) -> None:
    record_import(
        document=rf.record("2505.00002", [rf.observation("2505.00002", 1)]),
        actor=ACTOR,
        reason="fixture",
    )
    outcome = measure_paper(
        Paper.objects.get(arxiv_id="2505.00002"), actor=ACTOR, client=crossref(httpserver)
    )
    assert outcome.detail == "no published DOI"
