"""Matching that holds on damaged references (issue 25, item 3): title words out of order, and
spacing or OCR damage in venue names and numbers."""

from __future__ import annotations

import pytest

from curation.resolution.resolver import resolve_raw
from curation.resolution.services.catalogue_imports import refresh_title_words, store_crossref_works
from tests.resolution.test_conflicts import work

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalogue() -> None:
    store_crossref_works(
        [
            work("10.1000/gut.flora", "Seasonal shifts in the gut flora of wild mountain hares",
                 2015, "44", "310-322", "Varga", journal="Journal of Mammalogy"),  # fmt: skip
            # a look-alike one word shorter: the same words in another order must not find it
            work("10.1000/gut.flora.short", "Seasonal shifts in the gut flora of mountain hares",
                 2015, "44", "330-341", "Varga", journal="Journal of Mammalogy"),  # fmt: skip
        ]
    )


def test_a_title_with_its_words_reordered_links_fuzzy(catalogue: None) -> None:
    _, verdict = resolve_raw(
        "Varga T. Wild mountain hares: seasonal shifts in the gut flora of. "
        "Journal of Mammalogy. 2015;44:310-22."
    )
    assert verdict.status == "verified_fuzzy", verdict.evidence["decision"]
    assert verdict.linked is not None and verdict.linked.doi == "10.1000/gut.flora"
    assert verdict.evidence["matched"]["title_words_reordered"] is True


def test_reordered_words_missing_one_word_do_not_link_by_title(catalogue: None) -> None:
    _, verdict = resolve_raw(
        "Varga T. Mountain hares: seasonal shifts in the flora of wild. Journal of "
        "Mammalogy. 2015."
    )
    assert verdict.linked is None


@pytest.fixture
def same_titles() -> None:
    """Two works of one title and journal a year and a volume apart (the later one only is
    catalogued), and a short-titled work."""
    store_crossref_works(
        [
            work("10.1000/romk.2007", "Regulation of ROMK channels: new mechanisms and aspects",
                 2007, "291", "128-137", "Wang", journal="Am J Physiol Renal Physiol"),
            work("10.1000/leptin.lookalike", "The neuroprotective effect of intranasally "
                 "applied leptin against hypoxic neuronal injury", 2010, "74", "1059-1060",
                 "Macrea", journal="Med Hypotheses"),
            work("10.1000/travel", "Travel life cycle", 1995, "22", "535-552", "Opperman",
                 journal="Annals of Tourism Research"),
        ]
    )  # fmt: skip


def test_an_ocr_damaged_volume_still_tells_the_volumes_apart(same_titles: None) -> None:
    _, verdict = resolve_raw(
        "(137) Wang, A. Regulation of ROMK Channels: New Mechanismsa nd Aspects. "
        "Am J Physiol Renal P hysiol 2006, 29O, l28–l37."
    )
    assert verdict.linked is None
    assert verdict.evidence["candidates"][0]["conflicts"] == {
        "volume": {"reference": "290", "work": "291"}
    }


def test_an_ocr_damaged_number_is_read_as_digits(same_titles: None) -> None:
    _, verdict = resolve_raw(
        "(137) Wang, A. Regulation of ROMK Channels: New Mechanismsa nd Aspects. "
        "Am J Physiol Renal P hysiol 2007, 29l, l28–l37."
    )
    assert verdict.status == "verified_exact"
    assert verdict.evidence["matched"]["volume_found"] is True


def test_a_page_after_the_volume_contradicts_a_near_title(same_titles: None) -> None:
    _, verdict = resolve_raw(
        "(33) Macrea, M.; Misra, H.; Zagrean, L. The Neuroprotective Effect of "
        "Intranasally Applied Leptin Against Hypoxic Neuronal Injury. Med Hypotheses 2010, "
        "74, 1036–1037."
    )
    assert verdict.linked is None
    assert verdict.evidence["candidates"][0]["conflicts"]["first_page"] == {
        "reference": "1036", "work": "1059"
    }  # fmt: skip


def test_a_short_title_with_its_journal_volume_and_page_links(same_titles: None) -> None:
    _, verdict = resolve_raw("[103] Travel life cycle. Annals of Tourism Research 1995;22:535–52.")
    assert verdict.status == "verified_exact", verdict.evidence["decision"]


@pytest.fixture
def journals() -> None:
    store_crossref_works(
        [
            work("10.1109/tassp.1979.1163209", "Suppression of acoustic noise in speech using "
                 "spectral subtraction", 1979, "27", "113-120", "Boll",
                 journal="IEEE Transactions on Acoustics, Speech, and Signal Processing"),
            work("10.1088/0266-5611/24/3/034006", "Sparse recovery of point sources", 2008,
                 "24", "034006", "Lindgren", journal="Inverse Problems"),
        ]
    )  # fmt: skip


def test_a_journal_name_through_spacing_damage_still_places_the_locator(journals: None) -> None:
    _, verdict = resolve_raw(
        "S. Boll, IEEETransac tions onAcoustics, Speech and Signal Processing 27 (1979) 113."
    )
    # fuzzy: what the parser took for the title is the damaged journal name
    assert verdict.status == "verified_fuzzy", verdict.evidence["decision"]
    assert verdict.linked is not None and verdict.linked.doi == "10.1109/tassp.1979.1163209"


def test_an_article_number_split_by_a_space_is_read_whole(journals: None) -> None:
    _, verdict = resolve_raw("P. Lindgren, Inverse Problems 24, 03400 6 (2008).")
    assert verdict.linked is not None and verdict.linked.doi == "10.1088/0266-5611/24/3/034006"


@pytest.fixture
def title_less() -> None:
    """Works cited without their titles (Elsevier, AIP, ACS), and a look-alike at the same
    volume and first page in a journal whose key is close."""
    store_crossref_works(
        [
            work("10.1000/immuno", "Anti-inflammatory effects of a seaweed extract in mice", 2009,
                 "9", "878-885", "Lee", "Park", journal="International Immunopharmacology"),
            work("10.1000/planning", "Contraceptive use after the first birth", 2001, "32",
                 "130-146", "Ndiaye", journal="Studies in Family Planning"),
            work("10.1000/other.journal", "Immune markers in wild populations", 2009, "9",
                 "878-886", "Osei", journal="International Journal of Immunogenetics"),
        ]
    )  # fmt: skip


def test_an_ocr_damaged_journal_with_author_volume_and_page_links(title_less: None) -> None:
    _, verdict = resolve_raw("[138] M.Y. Lee, B.Y. Park, Int Immunopharrnacol 9 (2009) 878–885.")
    assert verdict.status == "verified_exact", verdict.evidence["decision"]
    assert verdict.linked is not None and verdict.linked.doi == "10.1000/immuno"
    assert verdict.evidence["matched"]["venue_nearly_found"] is True


def test_a_nearly_found_journal_without_the_first_author_does_not_link(title_less: None) -> None:
    # The same damaged journal, volume and page, but people who are not the work's authors.
    _, verdict = resolve_raw("[138] K. Mbeki, R. Santos, Int Immunopharrnacol 9 (2009) 878–885.")
    assert verdict.linked is None


def test_a_damaged_journal_read_as_the_title_links_by_its_locator(title_less: None) -> None:
    # No authors: the parser reads the damaged journal name as the title.
    _, verdict = resolve_raw("[7] Studies in Fam ily Planning 32 (2001) l30–146.")
    assert verdict.status == "verified_exact", verdict.evidence["decision"]
    assert verdict.linked is not None and verdict.linked.doi == "10.1000/planning"


@pytest.fixture
def same_title_elsewhere() -> None:
    """A work of the very title a string cites, at another volume and page of its journal."""
    store_crossref_works(
        [
            work("10.1000/sulphur.1978", "The role of sulphur in chemical evolution", 1978, "10",
                 "540-551", "Raulin", "Toupance", journal="Journal of Molecular Evolution"),
        ]
    )  # fmt: skip
    refresh_title_words()  # the whole-string search finds the title by its words


def test_a_list_label_is_not_the_volume_the_strings_own_locator_contradicts(
    same_title_elsewhere: None,
) -> None:
    # "[10]" is the list label, not the volume: the string's 9, 329 contradicts 10, 540 (the
    # parse, thrown by the damage, read no volume).
    _, verdict = resolve_raw(
        "[10] F. Raulin a nd G. To upance, The role of sulphur in chemical evolution, "
        "Journal of Molecular Evolving 9, 329 (1977)."
    )
    assert verdict.linked is None
    assert "locator" in verdict.evidence["candidates"][0]["conflicts"]


@pytest.fixture
def full_names() -> None:
    """Works whose container titles are written in full, with a phrase the LTWA abbreviates as
    one ("New England") and a section after the main title."""
    store_crossref_works(
        [
            work("10.1000/nejm", "Capecitabine and oxaliplatin for advanced esophagogastric "
                 "cancer", 2008, "358", "36-46", "Cunningham", "Starling",
                 journal="New England Journal of Medicine"),
            work("10.1000/bba", "Lamin A processing and the nuclear envelope", 2008, "1783",
                 "2022-2030", "Verstraeten", journal="Biochimica et Biophysica Acta (BBA) - "
                 "Molecular Cell Research"),
        ]
    )  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "doi"),
    [
        ("[129] D. Cunningham, N. Starling, N Engl J Med 358 (2008) 36–46.", "10.1000/nejm"),
        ("V.L. Verstraeten, Biochim. Biophys. Acta 1783 (2008) 2022–2030.", "10.1000/bba"),
    ],
)
def test_a_title_less_reference_finds_a_journal_written_in_full(
    full_names: None, raw: str, doi: str
) -> None:
    _, verdict = resolve_raw(raw)
    assert verdict.status == "verified_exact", verdict.evidence["decision"]
    assert verdict.linked is not None and verdict.linked.doi == doi
