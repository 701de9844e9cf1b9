"""Curation through the API (Curators only, audited, no lost updates) and notice events."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from curation.audit import Actor, audited
from curation.models import CitedWork, Observation, ObservationEvent
from curation.notices.models import NoticeEvent, NoticeReview

pytestmark = pytest.mark.django_db


@pytest.fixture
def junk(sample: dict[str, Any]) -> Observation:
    """Return reference 33 of the sample, the BibTeX artefact "write newline"."""
    return Observation.objects.get(work_title="write newline")


def _state(client: APIClient, observation: Observation, **body: Any) -> Any:
    return client.post(f"/api/v1/observations/{observation.pk}/state", body, format="json")


def test_a_curator_sets_a_state_with_a_reason_and_it_is_audited(
    curator: APIClient, junk: Observation
) -> None:
    response = _state(
        curator, junk, status="parse_uncertain", reason="BibTeX artefact", revision=junk.revision
    )

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["resolution"]["status"] == "parse_uncertain"
    assert body["resolution"]["origin"] == "curator" and body["pinned"] is True
    event = ObservationEvent.objects.filter(pgh_obj_id=junk.pk, pgh_label="update").get()
    assert event.pgh_context.metadata["source"] == "api"
    assert event.pgh_context.metadata["actor"] == "user:carla"
    assert event.pgh_context.metadata["reason"] == "BibTeX artefact"


def test_a_curator_links_an_observation(curator: APIClient, junk: Observation) -> None:
    response = curator.post(
        f"/api/v1/observations/{junk.pk}/link",
        {"arxiv_id": "1604.06174", "reason": "the right paper"},
        format="json",
        HTTP_IF_MATCH=f'"{junk.revision}"',  # the revision seen, as a header
    )

    assert response.status_code == 200, response.content
    assert response.json()["cited_paper"] == "1604.06174"
    assert response.json()["resolution"]["status"] == "verified_exact"


def _link(client: APIClient, observation: Observation, **body: Any) -> Any:
    body = {"reason": "the right work", "revision": observation.revision, **body}
    return client.post(f"/api/v1/observations/{observation.pk}/link", body, format="json")


def test_a_curator_links_a_known_doi_under_the_admins_rule(
    curator: APIClient, junk: Observation, settings: Any
) -> None:
    from curation.resolution.services.catalogue_imports import store_crossref_works

    settings.CITEREC_OFFLINE = True
    store_crossref_works([{"DOI": "10.1000/ckpt.1", "title": ["Checkpointing for deep learning"]}])

    response = _link(curator, junk, doi="10.1000/CKPT.1")

    assert response.status_code == 200, response.content
    assert response.json()["resolution"]["status"] == "verified_exact"
    stored = Observation.objects.get(pk=junk.pk)
    assert stored.work_doi == "10.1000/ckpt.1" and stored.pinned


def test_a_doi_link_is_cleaned_by_the_service_as_the_admin_cleans_it(
    curator: APIClient, junk: Observation, settings: Any
) -> None:
    from curation.models import CitedWork
    from curation.resolution.services.catalogue_imports import store_crossref_works

    settings.CITEREC_OFFLINE = True
    store_crossref_works([{"DOI": "10.1016/j.micpro.2020.103053", "title": ["Microprocessors"]}])
    works = CitedWork.objects.count()

    response = _link(curator, junk, doi="https://doi.org/10.1016/J.MICPRO.2020.103053.")

    assert response.status_code == 200, response.content
    assert Observation.objects.get(pk=junk.pk).work_doi == "10.1016/j.micpro.2020.103053"
    assert CitedWork.objects.filter(doi="10.1016/j.micpro.2020.103053").count() == 1
    assert CitedWork.objects.count() <= works + 1  # no second work for the URL form


@pytest.mark.parametrize("given", ["arXiv:1604.06174v2", "https://arxiv.org/abs/1604.06174v1"])
def test_an_arxiv_link_takes_what_the_admin_takes(
    curator: APIClient, junk: Observation, given: str
) -> None:
    response = _link(curator, junk, arxiv_id=given)

    assert response.status_code == 200, response.content
    assert response.json()["cited_paper"] == "1604.06174"


@pytest.mark.parametrize("body", [{"doi": "not a doi"}, {"arxiv_id": "arXiv:nonsense"}])
def test_an_identifier_that_is_not_one_is_refused_by_name(
    curator: APIClient, junk: Observation, body: dict[str, str]
) -> None:
    response = _link(curator, junk, **body)

    assert response.status_code == 400
    assert "is not a" in str(response.json())
    assert Observation.objects.get(pk=junk.pk).revision == junk.revision


def test_an_unknown_doi_is_refused_with_why_and_nothing_changes(
    curator: APIClient, junk: Observation, settings: Any
) -> None:
    settings.CITEREC_OFFLINE = True  # Crossref is not asked: the local catalogue alone decides
    events = ObservationEvent.objects.filter(pgh_obj_id=junk.pk).count()

    response = _link(curator, junk, doi="10.1000/nobody.knows")

    assert response.status_code == 400
    assert "not in the local catalogue (offline: Crossref not asked)" in str(response.json())
    assert Observation.objects.get(pk=junk.pk).revision == junk.revision
    assert ObservationEvent.objects.filter(pgh_obj_id=junk.pk).count() == events


@pytest.mark.parametrize("body", [{}, {"arxiv_id": "1604.06174", "doi": "10.1000/ckpt.1"}])
def test_a_link_names_exactly_one_identifier(
    curator: APIClient, junk: Observation, body: Any
) -> None:
    assert _link(curator, junk, **body).status_code == 400


def test_a_stale_revision_is_a_409_and_changes_nothing(
    curator: APIClient, junk: Observation
) -> None:
    response = _state(curator, junk, status="unresolved", reason="x", revision=junk.revision + 5)

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "stale_revision"
    assert Observation.objects.get(pk=junk.pk).revision == junk.revision


@pytest.mark.parametrize(
    "body",
    [
        {"status": "parse_uncertain"},  # no reason
        {"status": "parse_uncertain", "reason": "   "},
        {"status": "verified_exact", "reason": "a verified state needs a link"},
        {"status": "nonsense", "reason": "x"},
    ],
)
def test_invalid_decisions_are_400(curator: APIClient, junk: Observation, body: Any) -> None:
    assert _state(curator, junk, **body).status_code == 400


def test_only_curators_curate(anon: APIClient, reader: APIClient, junk: Observation) -> None:
    body = {"status": "parse_uncertain", "reason": "x"}

    assert _state(anon, junk, **body).status_code == 401
    assert _state(reader, junk, **body).status_code == 403
    assert Observation.objects.get(pk=junk.pk).pinned is False


def _event(work: CitedWork, **values: Any) -> NoticeEvent:
    now = timezone.now()
    fields = {
        "source": "crossref",
        "identity": f"10.1/notice-{values.get('type', 'retraction')}",
        "type": "retraction",
        "severity": 0,
        "date": date(2024, 5, 1),
        "first_seen_at": now,
        "last_seen_at": now,
        **values,
    }
    with audited(Actor.command("test"), "fixture"):
        return NoticeEvent.objects.create(work=work, **fields)


def test_notice_events_filter_by_type_source_review_and_date(
    anon: APIClient, sample: dict[str, Any]
) -> None:
    work = CitedWork.objects.get(arxiv_id="1604.06174")
    retraction = _event(work)
    correction = _event(work, type="correction", severity=3, source="retraction_watch")
    with audited(Actor.command("test"), "fixture"):
        NoticeReview.objects.create(
            event=correction, status="dismissed", severity=3, opened_at=timezone.now()
        )

    def ids(**params: str) -> list[int]:
        return [e["id"] for e in anon.get("/api/v1/notice-events", params).json()["results"]]

    assert ids() == [retraction.pk, correction.pk]
    assert ids(type="retraction") == [retraction.pk]
    assert ids(source="retraction_watch") == [correction.pk]
    assert ids(review_state="new") == [retraction.pk]
    assert ids(review_state="dismissed") == [correction.pk]
    assert ids(date_after="2024-05-02") == []
    assert ids(work=str(work.pk), date_before="2024-05-01") == [retraction.pk, correction.pk]
    assert anon.get("/api/v1/notice-events", {"type": "rumour"}).status_code == 400
