"""Field conflicts (issue 25, item 1): a field both sides carry that disagrees refuses the link;
a field missing on either side never counts against it."""

from __future__ import annotations

from typing import Any

import pytest

from curation.resolution.resolver import resolve_raw
from curation.resolution.services.catalogue_imports import (
    refresh_title_words,
    store_crossref_works,
)

pytestmark = pytest.mark.django_db


def work(doi: str, title: str, year: int, volume: str, page: str, *authors: str,
         journal: str = "Philosophical Transactions") -> dict[str, Any]:  # fmt: skip
    return {
        "DOI": doi,
        "type": "journal-article",
        "title": [title],
        "container-title": [journal],
        "volume": volume,
        "page": page,
        "issued": {"date-parts": [[year]]},
        "author": [{"family": a, "given": "A."} for a in authors],
    }


@pytest.fixture
def catalogue() -> None:
    store_crossref_works(
        [
            work("10.1098/rstl.1892.0012", "On the magnetic properties of iron and steel", 1892,
                 "126", "484-497", "Hopkinson"),
            work("10.1000/volume.other", "Convective heat transport in narrow channels", 2004,
                 "31", "220-231", "Okafor", "Lindqvist"),
            work("10.1000/no.authors", "Annual report of the survey committee", 2011, "8",
                 "13-20"),
            # an editorial on the same page as an article that is not in the catalogue
            work("10.1000/editorial", "Editorial: a new year", 2008, "28", "1-2", "Skegg",
                 journal="J Cereb Blood Flow Metab"),
        ]
    )  # fmt: skip


def test_a_title_match_contradicted_by_volume_and_first_page_is_refused(catalogue: None) -> None:
    _, verdict = resolve_raw(
        "Hopkinson J. On the magnetic properties of iron and steel. Philosophical "
        "Transactions. 1893;128:480-490."
    )
    assert verdict.status == "metadata_mismatch" and verdict.linked is None
    conflicts = verdict.evidence["candidates"][0]["conflicts"]
    assert conflicts == {
        "volume": {"reference": "128", "work": "126"},
        "first_page": {"reference": "480", "work": "484"},
    }
    assert "volume, first_page" in verdict.evidence["decision"]


def test_the_same_reference_with_agreeing_fields_links(catalogue: None) -> None:
    _, verdict = resolve_raw(
        "Hopkinson J. On the magnetic properties of iron and steel. Philosophical "
        "Transactions. 1892;126:484-497."
    )
    assert verdict.status == "verified_exact"
    assert verdict.linked is not None and verdict.linked.doi == "10.1098/rstl.1892.0012"
    assert "conflicts" not in verdict.evidence["matched"]


def test_other_authors_in_the_same_volume_are_refused(catalogue: None) -> None:
    _, verdict = resolve_raw(
        "Brandt K, Moreau P. Convective heat transport in narrow channels. "
        "Philosophical Transactions. 2004;31:250-262."
    )
    assert verdict.status == "metadata_mismatch"
    assert verdict.evidence["candidates"][0]["conflicts"] == {
        "first_page": {"reference": "250", "work": "220"}
    }


def test_a_journal_citation_by_another_person_is_not_linked_by_its_locator(
    catalogue: None,
) -> None:
    _, verdict = resolve_raw("[100] M.L. Prins, J. Cereb. Blood Flow Metab. 28 (2008) 1–16.")
    assert verdict.linked is None
    assert verdict.evidence["candidates"][0]["author_check"] == "contradicts"


def test_a_journal_word_read_as_a_name_does_not_contradict(catalogue: None) -> None:
    _, verdict = resolve_raw("Skegg, J. Cereb. Blood Flow Metab. 28 (2008) 1.")
    assert verdict.linked is not None and verdict.linked.doi == "10.1000/editorial"
    _, verdict = resolve_raw("J. Cereb. Blood Flow Metab. 28 (2008) 1.")
    assert verdict.linked is not None and verdict.linked.doi == "10.1000/editorial"


def test_a_reference_without_volume_or_page_is_not_contradicted_by_them(catalogue: None) -> None:
    _, verdict = resolve_raw(
        "Hopkinson J. On the magnetic properties of iron and steel. Philosophical "
        "Transactions, 1892."
    )
    assert verdict.status == "verified_exact"


def test_no_authors_on_either_side_is_not_a_contradiction(catalogue: None) -> None:
    _, verdict = resolve_raw(
        "Annual report of the survey committee. Philosophical Transactions. 2011;8:13-20."
    )
    assert verdict.status == "verified_exact", verdict.evidence["decision"]
    assert verdict.linked is not None and verdict.linked.doi == "10.1000/no.authors"


def test_a_chapter_is_not_linked_to_the_whole_book() -> None:
    book = work("10.1093/book.social", "Social support measurement and intervention", 2000, "",
                "", "Cohen", journal="")  # fmt: skip
    book["type"] = "book"
    store_crossref_works([book])
    refresh_title_words()  # the whole-string search goes by word frequencies
    _, verdict = resolve_raw(
        "Cohen, S., Gottlieb, B., & Underwood, L. (2000). Social relationships and health. In "
        "S. Cohen, L. Underwood, & B. Gottlieb (Eds.), Social support measurement and "
        "intervention (pp. 3-28). New York: Oxford University Press."
    )
    assert verdict.linked is None
    assert "part_of" in verdict.evidence["candidates"][0]["conflicts"]
    _, verdict = resolve_raw(
        "Cohen, S., Underwood, L., & Gottlieb, B. (2000). Social support measurement and "
        "intervention. New York: Oxford University Press."
    )
    assert verdict.linked is not None and verdict.linked.doi == "10.1093/book.social"


def test_another_issue_of_the_same_volume_is_a_conflict() -> None:
    issue_3 = work("10.1000/issue.three", "Tidal mixing over rough topography", 2012, "42",
                   "310-322", "Okafor", journal="Ocean Dynamics")  # fmt: skip
    issue_3["issue"] = "3"
    store_crossref_works([issue_3])
    _, verdict = resolve_raw(
        "Okafor J. Tidal mixing over rough topography. Ocean Dynamics. 2012;42(5):410-22."
    )
    assert verdict.linked is None
    assert verdict.evidence["candidates"][0]["conflicts"]["issue"] == {"reference": "5", "work": "3"}
    _, verdict = resolve_raw(
        "Okafor J. Tidal mixing over rough topography. Ocean Dynamics. 2012;42(3):310-22."
    )
    assert verdict.linked is not None and verdict.linked.doi == "10.1000/issue.three"
