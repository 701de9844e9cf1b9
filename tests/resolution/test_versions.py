"""Version sets: an arXiv paper and its published DOI are one work (issue 25 item 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from curation.audit import audited
from curation.catalogue import versions
from curation.catalogue.versions import VersionSets, relation_versions, shown_version
from curation.models import CitedWork
from curation.notices.selectors import works_keys
from curation.resolution.models import CrossrefWork
from curation.resolution.resolver import resolve_raw
from tests.resolution.published_versions import (
    ACTOR,
    BY_HAS_PREPRINT,
    BY_IS_PREPRINT_OF,
    BY_JOURNAL_REF,
    CONTESTED,
    UNKNOWN_PREPRINT,
    VERSION_SETS,
    load_catalogue,
    resolved,
)


def _has_preprint(*entries: Any) -> dict[str, Any]:
    return {"relation": {"has-preprint": list(entries)}}


@pytest.mark.parametrize(
    ("doi", "work", "tokens"),
    [
        ("10.1/j", _has_preprint({"id-type": "doi", "id": "10.48550/arXiv.2101.00001"}),
         ["arxiv:2101.00001"]),
        ("10.1/j", _has_preprint({"id-type": "arxiv", "id": "arXiv:2101.00001v3"}),
         ["arxiv:2101.00001"]),
        ("10.1/j", _has_preprint({"id-type": "uri", "id": "https://arxiv.org/abs/hep-th/9711200"}),
         ["arxiv:hep-th/9711200"]),
        ("10.1/j", _has_preprint({"id-type": "doi", "id": "https://doi.org/10.48550/ARXIV.2101.00001"}),
         ["arxiv:2101.00001"]),
        # A preprint on another server, and entries of shapes Crossref does not send.
        ("10.1/j", _has_preprint({"id-type": "doi", "id": "10.1101/2020.01.01.123456"}), []),
        ("10.1/j", _has_preprint("2101.00001", {"id": 7}, {"id-type": "issn", "id": "1234-5678"}), []),
        ("10.1/j", {"relation": ["has-preprint"]}, []),
        ("10.1/j", {"relation": {"is-preprint-of": [{"id-type": "doi", "id": "10.2/k"}]}}, []),
        # The work of an arXiv DOI names the DOI it was published under.
        ("10.48550/arxiv.2102.00004",
         {"relation": {"is-preprint-of": [{"id-type": "doi", "id": "10.1000/JW.4"}]}},
         ["doi:10.1000/jw.4"]),
        ("10.48550/arxiv.2102.00004", _has_preprint({"id-type": "arxiv", "id": "2101.00001"}), []),
    ],
)  # fmt: skip
def test_relation_names_arxiv_versions(doi: str, work: dict[str, Any], tokens: list[str]) -> None:
    assert relation_versions(doi, work) == tokens


@pytest.fixture
def catalogue(tmp_path: Path) -> None:
    load_catalogue(tmp_path)


@pytest.mark.django_db
def test_the_crossref_import_keeps_the_relation(catalogue: None) -> None:
    stored = dict(
        CrossrefWork.objects.exclude(arxiv_versions=[]).values_list("doi", "arxiv_versions")
    )
    assert stored == {
        BY_HAS_PREPRINT[2]: [f"arxiv:{BY_HAS_PREPRINT[0]}"],
        f"10.48550/arxiv.{BY_IS_PREPRINT_OF[0]}": [f"doi:{BY_IS_PREPRINT_OF[2]}"],
        UNKNOWN_PREPRINT[0]: [f"arxiv:{UNKNOWN_PREPRINT[2]}"],
    }


@pytest.mark.django_db
@pytest.mark.parametrize(("arxiv_id", "title", "doi", "via"), VERSION_SETS)
def test_a_reference_with_the_journal_doi_verifies_to_the_arxiv_paper(
    catalogue: None, arxiv_id: str, title: str, doi: str, via: str
) -> None:
    _, verdict = resolve_raw(f"A. Ferrer, {title}, doi:{doi.upper()}")
    assert (verdict.status, verdict.resolver_source) == ("verified_exact", "doi"), verdict.evidence
    assert (verdict.arxiv_id, verdict.doi) == (arxiv_id, doi)
    assert verdict.evidence["version_set"] == {"arxiv_id": arxiv_id, "doi": doi, "via": via}


@pytest.mark.django_db
@pytest.mark.parametrize(("arxiv_id", "title", "doi", "via"), VERSION_SETS)
def test_a_reference_with_the_arxiv_id_notes_the_published_doi(
    catalogue: None, arxiv_id: str, title: str, doi: str, via: str
) -> None:
    _, verdict = resolve_raw(f"A. Ferrer, {title}, arXiv:{arxiv_id}")
    assert (verdict.status, verdict.resolver_source) == ("verified_exact", "local_arxiv")
    assert verdict.arxiv_id == arxiv_id
    assert verdict.evidence["version_set"] == {"arxiv_id": arxiv_id, "doi": doi, "via": via}


@pytest.mark.django_db
def test_a_relation_to_an_arxiv_paper_citerec_lacks_changes_nothing(catalogue: None) -> None:
    doi, title, _ = UNKNOWN_PREPRINT
    _, verdict = resolve_raw(f"A. Ferrer, {title}, doi:{doi}")
    assert (verdict.status, verdict.resolver_source, verdict.doi) == ("verified_exact", "doi", doi)
    assert verdict.arxiv_id is None
    assert "version_set" not in verdict.evidence and "version_conflict" not in verdict.evidence


@pytest.mark.django_db
def test_a_doi_two_papers_claim_links_neither_by_version(catalogue: None) -> None:
    doi, title, papers = CONTESTED
    _, verdict = resolve_raw(f"A. Ferrer, {title}, doi:{doi}")
    assert (verdict.status, verdict.resolver_source, verdict.doi) == ("verified_exact", "doi", doi)
    assert verdict.arxiv_id is None
    conflict = verdict.evidence["version_conflict"]
    assert {c["arxiv_id"] for c in conflict["claims"]} == set(papers)
    assert "claimed by 2 arXiv papers" in conflict["decision"]
    assert "version_set" not in verdict.evidence
    # The paper's side: its DOI is contested, so no published version is noted either.
    _, by_id = resolve_raw(f"A. Ferrer, {title}, arXiv:{papers[0]}")
    assert (by_id.status, by_id.arxiv_id) == ("verified_exact", papers[0])
    assert "version_set" not in by_id.evidence and by_id.evidence["version_conflict"]
    assert shown_version(papers[0], doi, by_id.evidence) is None


@pytest.mark.django_db
def test_journal_ref_matches_only_within_a_year(catalogue: None) -> None:
    from curation.resolution.services.catalogue_imports import store_crossref_works

    # Same journal, volume and first page, ten years off: not the paper's published version.
    store_crossref_works([{"DOI": "10.1103/physrevd.85.094516.old", "title": ["Another"],
                           "container-title": ["Physical Review D"], "volume": "85",
                           "page": "094516", "issued": {"date-parts": [[2002]]}}])  # fmt: skip
    sets = VersionSets()
    sets.ask_papers([BY_JOURNAL_REF[0]])
    assert sets.for_paper(BY_JOURNAL_REF[0]).link == versions.VersionLink(
        BY_JOURNAL_REF[0], BY_JOURNAL_REF[2], "journal_ref"
    )
    sets.ask_dois(["10.1103/physrevd.85.094516.old"])
    assert sets.for_doi("10.1103/physrevd.85.094516.old").link is None


@pytest.mark.django_db
def test_resolving_writes_the_paper_and_keeps_the_doi(catalogue: None) -> None:
    arxiv_id, title, doi, _ = BY_JOURNAL_REF
    observation = resolved(f"A. Ferrer, {title}, Phys. Rev. D 85, 094516 (2012), doi:{doi}")
    assert observation.resolution.status == "verified_exact"
    assert observation.resolution.resolver_source == "doi"
    assert observation.cited_paper.arxiv_id == arxiv_id
    assert (observation.work_doi, observation.work_pith_arxiv_id) == (doi, arxiv_id)
    assert observation.cited_work.doi == doi


@pytest.mark.django_db
@pytest.mark.parametrize("found", [BY_JOURNAL_REF, BY_HAS_PREPRINT, BY_IS_PREPRINT_OF])
def test_notices_of_an_arxiv_work_ask_about_its_published_doi(
    catalogue: None, found: tuple[str, str, str, str]
) -> None:
    arxiv_id, _, doi, _ = found
    with audited(ACTOR, "test setup"):
        work = CitedWork.objects.create(arxiv_id=arxiv_id)
    keys = works_keys([work])[work.pk]
    assert keys.crossref_doi == doi
    assert doi in keys.dois and keys.arxiv_id == arxiv_id


@pytest.mark.django_db
def test_notices_of_a_contested_arxiv_work_ask_about_its_own_doi_only(catalogue: None) -> None:
    doi, _, papers = CONTESTED
    with audited(ACTOR, "test setup"):
        work = CitedWork.objects.create(arxiv_id=papers[0])
    # The arXiv record's own DOI is asked about, as SPEC §4 says, contested or not.
    assert works_keys([work])[work.pk].crossref_doi == doi
    assert versions.published_dois(papers) == {}


@pytest.mark.django_db
def test_a_batch_asks_about_its_papers_and_their_dois_in_one_statement(
    catalogue: None, django_assert_num_queries: Any
) -> None:
    from curation.catalogue import records

    doi, _, papers = CONTESTED
    sets = VersionSets()
    sets.know(records.papers_by_arxiv_id(papers).values())
    # The paper's own DOI, and the other paper claiming it, come with the paper's statements.
    with django_assert_num_queries(1):
        sets.ask_papers([papers[0]])
    assert sets.for_paper(papers[0]).conflict
    with django_assert_num_queries(0):
        sets.ask_dois([doi])  # asked already, with the paper
    assert {c.arxiv_id for c in sets.for_doi(doi).conflict} == set(papers)


@pytest.mark.django_db
def test_papers_in_hand_give_the_statements_their_rows_would(catalogue: None) -> None:
    """A paper the batch read already brings its row (DOI, locator) instead of a second read:
    the statements, and so the decisions, are the same either way, also in one ask that
    mixes papers in hand with papers not."""
    from curation.catalogue import records

    papers = [found[0] for found in VERSION_SETS] + list(CONTESTED[2])
    read = VersionSets()
    read.ask_papers(papers)
    for held_ones in (papers, papers[::2]):
        held = VersionSets()
        held.know(records.papers_by_arxiv_id(held_ones).values())
        held.ask_papers(papers)
        assert held._links == read._links
        assert [held.for_paper(a) for a in papers] == [read.for_paper(a) for a in papers]
    for arxiv_id, _, doi, via in VERSION_SETS:
        assert read.for_paper(arxiv_id).link == versions.VersionLink(arxiv_id, doi, via)
