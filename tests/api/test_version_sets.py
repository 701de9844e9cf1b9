"""Both identifiers of a link to an arXiv paper with a published version, in the API and the
record page (issue 25 item 4; the version sets are tests/resolution/test_versions.py's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from rest_framework.test import APIClient

from curation.models import Observation
from curation.services.observations import observation_link_arxiv
from tests.resolution.published_versions import (
    ACTOR,
    BY_ARXIV_DOI,
    BY_JOURNAL_REF,
    CITING,
    CONTESTED,
    load_catalogue,
    resolved,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalogue(tmp_path: Path) -> None:
    load_catalogue(tmp_path)


def _observation(client: APIClient, observation: Observation) -> dict[str, object]:
    return client.get(f"/api/v1/observations/{observation.pk}").json()  # type: ignore[no-any-return]


def test_a_reference_to_the_arxiv_id_shows_the_published_doi(
    anon: APIClient, catalogue: None
) -> None:
    arxiv_id, title, doi, _ = BY_JOURNAL_REF
    observation = resolved(f"A. Ferrer, {title}, arXiv:{arxiv_id}")
    body = _observation(anon, observation)
    assert body["cited_paper"] == arxiv_id
    assert body["version_set"] == {"arxiv_id": arxiv_id, "doi": doi, "via": "journal_ref"}
    # v1 keeps what the reference gave: no DOI was in it.
    assert body["work"]["doi"] is None  # type: ignore[index]


def test_a_reference_to_the_journal_doi_shows_the_arxiv_paper(
    anon: APIClient, catalogue: None
) -> None:
    arxiv_id, title, doi, _ = BY_JOURNAL_REF
    observation = resolved(f"A. Ferrer, {title}, doi:{doi}")
    body = _observation(anon, observation)
    assert (body["cited_paper"], body["work"]["doi"]) == (arxiv_id, doi)  # type: ignore[index]
    assert body["version_set"] == {"arxiv_id": arxiv_id, "doi": doi, "via": "journal_ref"}


def test_a_contested_doi_shows_no_version(anon: APIClient, catalogue: None) -> None:
    doi, title, papers = CONTESTED
    body = _observation(anon, resolved(f"A. Ferrer, {title}, doi:{doi}"))
    assert (body["cited_paper"], body["version_set"]) == (None, None)
    body = _observation(anon, resolved(f"A. Ferrer, {title}, arXiv:{papers[0]}", index=2))
    assert (body["cited_paper"], body["version_set"]) == (papers[0], None)


def test_a_curators_link_shows_the_arxiv_records_doi(anon: APIClient, catalogue: None) -> None:
    arxiv_id, _, doi, _ = BY_ARXIV_DOI
    observation = resolved("Some talk we could not find, 2021.")
    assert observation.cited_paper is None
    observation_link_arxiv(observation=observation, arxiv_id=arxiv_id, reason="I know this one",
                           expected_revision=observation.revision, actor=ACTOR)  # fmt: skip
    body = _observation(anon, observation)
    assert body["version_set"] == {"arxiv_id": arxiv_id, "doi": doi, "via": "arxiv_doi"}


def test_the_record_page_shows_both_identifiers(client: Client, catalogue: None) -> None:
    arxiv_id, title, doi, _ = BY_JOURNAL_REF
    resolved(f"A. Ferrer, {title}, arXiv:{arxiv_id}")
    html = client.get(f"/paper/{CITING}/citation-record").content.decode()
    assert f"<span>arXiv:{arxiv_id}</span>" in html
    assert f'<span class="published">doi:{doi}</span>' in html
    assert "Published version" in html
    assert f'<a href="https://doi.org/{doi}">doi:{doi}</a>' in html
    assert "its arXiv journal reference names this article" in html
