"""Whole-string matching (issue 13): journal references, Vancouver names, identifiers in conflict."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from curation.resolution.models import CrossrefWork, PaperLocator
from curation.resolution.resolver import resolve_raw
from curation.resolution.services.catalogue_imports import store_crossref_works
from curation.resolution.venues import (
    Locator,
    journal_keys,
    locator_pairs,
    parse_journal_ref,
    venue_key,
)
from tests.resolution.snapshot import snapshot_line


@pytest.mark.parametrize(
    ("written", "full"),
    [
        ("Phys. Rev. D", "Physical Review D"),
        ("Phys.Rev.D", "Physical Review D"),
        ("Nucl. Phys. B", "Nuclear Physics B"),
        ("Gastrointest Endosc", "Gastrointestinal Endoscopy"),
        ("J Shoulder Elbow Surg", "Journal of Shoulder and Elbow Surgery"),
        ("Adv. Theor. Math. Phys.", "Advances in Theoretical and Mathematical Physics"),
        ("JHEP", "Journal of High Energy Physics"),
        # Physics custom the LTWA cannot derive, from INSPIRE's journal list (refextract's KB).
        ("A&AS", "Astron. Astrophys. Suppl. Ser."),
        ("A & A", "Astronomy and Astrophysics"),
        ("ApJ", "Astrophys. J."),
        ("MNRAS", "Monthly Notices of the Royal Astronomical Society"),
        ("PRL", "Physical Review Letters"),
        ("JCAP", "Journal of Cosmology and Astroparticle Physics"),
        ("Nucl. Phys. (Proc. Suppl.)", "Nucl. Phys. B Proc. Suppl."),
        ("AJ", "Astron. J."),
    ],
)
def test_journal_abbreviations_share_one_key(written: str, full: str) -> None:
    assert venue_key(written) == venue_key(full) != ""


@pytest.mark.parametrize(
    ("abbreviated", "full"),
    [
        ("N Engl J Med", "New England Journal of Medicine"),  # an LTWA phrase: "N. Engl."
        ("Biochim Biophys Acta", "Biochimica et Biophysica Acta (BBA) - Molecular Cell Research"),
        ("J Geophys Res", "Journal of Geophysical Research: Atmospheres"),
        ("Int J Obes", "International Journal of Obesity (London)"),
        ("Angew Chem Int Ed", "Angewandte Chemie International Edition"),
    ],
)
def test_a_full_journal_name_has_the_key_of_its_abbreviation(abbreviated: str, full: str) -> None:
    assert venue_key(abbreviated) in journal_keys(full)


def test_series_letters_keep_journals_apart() -> None:
    assert len({venue_key("Phys. Rev. A"), venue_key("Phys. Rev. B"), venue_key("Phys. Rev.")}) == 3


@pytest.mark.parametrize(
    ("journal_ref", "locator"),
    [
        ("Phys.Rev.D65:094516,2002", Locator("physrevd", "65", "94516", 2002)),
        ("Nucl.Phys. B393 (1993) 377-400", Locator("nuclphysb", "393", "377", 1993)),
        ("Adv.Theor.Math.Phys.2:231-252,1998", Locator("advtheormathphys", "2", "231", 1998)),
        ("Astrophys.J.606:L155-L158,2004", Locator("astrophysj", "606", "l155", 2004)),
        ("A&AS15:417,1974", Locator(venue_key("A&AS"), "15", "417", 1974)),
        (
            "Nucl. Phys. (Proc. Suppl.) 48 (1996) 83",
            Locator(venue_key("Nucl. Phys. B Proc. Suppl."), "48", "83", 1996),
        ),
        (
            "Ann. Phys. (N.Y.)297:27,2002",
            Locator(venue_key("Ann. Phys. (N.Y.)"), "297", "27", 2002),
        ),
        ("JHEP0908:008,2009", Locator(venue_key("JHEP"), "908", "8", 2009)),
        ("Submitted to Nature", None),
    ],
)
def test_journal_refs_parse_into_locators(journal_ref: str, locator: Locator | None) -> None:
    assert parse_journal_ref(journal_ref) == locator


@pytest.fixture
def physics(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "physics.jsonl"
    lines = [
        snapshot_line("hep-lat/0203001", "Lattice results one", "Ada Ferrer", 2002,
                      journal_ref="Phys.Rev.D65:094516,2002"),
        snapshot_line("hep-lat/0203002", "Lattice results two", "Bea Ferrer", 2002,
                      journal_ref="Phys. Rev. D 65, 094517 (2002)"),
        snapshot_line("hep-th/9711200", "The large N limit", "Juan Maldacena", 1997,
                      journal_ref="Adv.Theor.Math.Phys.2:231-252,1998"),
        snapshot_line("astro-ph/0001001", "Radio maps", "Ann Hogbom", 1974,
                      journal_ref="Astron. Astrophys. Suppl. Ser. 15 (1974) 417"),
        snapshot_line("0905.0639", "Lattice chemical potential",
                      "Vicente Azcoiti, Giuseppe DiCarlo", 2009,
                      journal_ref="JHEP 0908:008,2009"),
        snapshot_line("1612.01551", "Jet topics", "Patrick Komiske, Matthew D. Schwartz", 2017,
                      journal_ref="JHEP 1701 (2017) 110"),
        snapshot_line("0801.0001", "Detector paper", "Kai Aamodt", 2008,
                      journal_ref="J. Instrum. 3:S08002,2008"),
        snapshot_line("astro-ph/9101001", "Ocean gases", "Ray Weiss", 1991,
                      journal_ref="Nature 349 (1991) 665"),
        snapshot_line("astro-ph/9101002", "Ocean gases two", "Ray Weiss", 1991,
                      journal_ref="Nature 349 (1991) 668"),
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    call_command("import_arxiv_snapshot", str(path), "--no-requeue", stdout=io.StringIO(),
                 verbosity=0)  # fmt: skip


def test_journals_sharing_a_custom_form_stay_apart() -> None:
    keys = {venue_key(n) for n in ("A&A", "A&AS", "ApJ", "ApJS", "ApJL", "Sov. Phys. JETP", "JETP")}
    assert len(keys) == 7


@pytest.mark.parametrize(
    ("raw", "pairs"),
    [
        ("Nature, 1991V349 665", {("349", "665")}),  # a year glued to a "V" volume
        ("JHEP0908 ( 2009) 008", {("908", "8")}),  # a journal glued to its volume
        ("Applied MathematicsLetters19 ,1083 ( 2006 )", {("19", "1083")}),
        ("JHEP01 ,110 ( 2017)", {("1", "110"), ("1701", "110")}),  # month volume + year
        ("Phys. Rev. D60 094516", {("60", "94516")}),  # a series letter stays with its volume
        ("A&A 571, A16", {("571", "a16")}),  # a page letter stays with its page
    ],
)
def test_locator_pairs_read_glued_and_month_volumes(raw: str, pairs: set[tuple[str, str]]) -> None:
    assert pairs <= set(locator_pairs(raw))


@pytest.mark.django_db
def test_import_stores_the_locators(physics: None) -> None:
    stored = {(p.paper.arxiv_id, p.venue_key, p.volume, p.first_page)
              for p in PaperLocator.objects.select_related("paper")}  # fmt: skip
    assert ("hep-lat/0203001", "physrevd", "65", "94516") in stored


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("raw", "status", "arxiv_id"),
    [
        ("A. Ferrer, Phys. Rev. D 65, 094516 (2002).", "verified_exact", "hep-lat/0203001"),
        ("Phys. Rev. D 65, 094517 (2002)", "verified_exact", "hep-lat/0203002"),
        ("J. M. Maldacena, Adv. Theor. Math. Phys. 2, 231 (1998).", "verified_exact",
         "hep-th/9711200"),
        ("Phys. Rev. D 66, 094516 (2002)", "parse_uncertain", None),  # another volume
        ("Phys. Rev. B 65, 094516 (2002)", "parse_uncertain", None),  # another journal
        ("Phys. Rev. D 65, 094516 (1975)", "parse_uncertain", None),  # the year says otherwise
        # Physics house styles (issue 13): custom journal forms, glued and month volumes.
        ("Högbom, J. A. 1974, A&AS, 15, 417", "verified_exact", "astro-ph/0001001"),
        ("Hogbom, J. A. 1974, A & AS, 15, 418", "parse_uncertain", None),  # another page
        ("G. DiCarlo , JHEP0908 ( 2009) 008[", "verified_exact", "0905.0639"),
        ("M. D. Schwartz, JHEP01 ,110 ( 2017)", "verified_exact", "1612.01551"),
        ("M. D. Schwartz, JHEP02 ,110 ( 2017)", "parse_uncertain", None),  # another month
        # A person the paper does not list: the locator alone does not link (issue 25).
        ("M. D. Schwarz, JHEP01 ,110 ( 2017)", "parse_uncertain", None),
        ("ALICE Collaboration, J. Instrum. 3 (08) (2008) S08002.", "verified_exact", "0801.0001"),
        ("Weiss R.F., Nature, 1991V349 665 .", "verified_exact", "astro-ph/9101001"),
    ],
)  # fmt: skip
def test_journal_citations_link_by_locator(
    physics: None, raw: str, status: str, arxiv_id: str | None
) -> None:
    _, verdict = resolve_raw(raw)
    assert (verdict.status, verdict.arxiv_id) == (status, arxiv_id), verdict.evidence


@pytest.fixture
def works() -> None:
    store_crossref_works(
        [
            {"DOI": "10.1000/yang.1", "title": ["Curcumin inhibits formation of amyloid beta "
             "oligomers and fibrils"], "author": [{"family": "Yang"}, {"family": "Lim"}],
             "container-title": ["Journal of Biological Chemistry"], "volume": "280",
             "page": "5892-5901", "issued": {"date-parts": [[2005]]}},
            {"DOI": "10.1000/yang.2", "title": ["Curcumin inhibits formation of amyloid beta "
             "oligomers in mice"], "author": [{"family": "Yang"}],
             "container-title": ["Journal of Biological Chemistry"], "volume": "280",
             "page": "5920", "issued": {"date-parts": [[2005]]}},
        ]
    )  # fmt: skip


@pytest.mark.django_db
def test_a_vancouver_author_list_does_not_gate_the_match(works: None) -> None:
    _, verdict = resolve_raw(
        "Yang F, Lim GP, Begum AN, Ubeda OJ. Curcumin inhibits formation of amyloid \n"
        "beta oligomers and fibrils. J Biol Chem. 2005;280:5892-901."
    )
    assert (verdict.status, verdict.doi) == ("verified_exact", "10.1000/yang.1")
    matched = verdict.evidence["matched"]
    assert matched["authors_found"][:2] == ["yang", "lim"]
    assert matched["title_found_at"] and matched["first_page_found"] and matched["venue_found"]


@pytest.mark.django_db
def test_a_journal_citation_without_title_links_a_crossref_work(works: None) -> None:
    _, verdict = resolve_raw("Yang F, et al. J Biol Chem 2005;280:5892.")
    assert (verdict.status, verdict.doi) == ("verified_exact", "10.1000/yang.1")
    assert CrossrefWork.objects.get(doi="10.1000/yang.1").venue_key == venue_key("J Biol Chem")


@pytest.mark.django_db
def test_an_arxiv_id_and_a_doi_naming_different_works_is_a_mismatch(
    physics: None, works: None
) -> None:
    _, verdict = resolve_raw(
        "J. Maldacena, The large N limit, arXiv:hep-th/9711200, doi:10.1000/yang.1"
    )
    assert verdict.status == "metadata_mismatch"
    assert set(verdict.evidence["identifiers_disagree"]) == {
        "arXiv:hep-th/9711200",
        "doi:10.1000/yang.1",
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    "raw",
    ["Roe, J. A study of cats. doi:10.1145, 2020.", "Roe, J. A study of cats. arXiv:2301.123."],
)
def test_a_broken_identifier_without_a_verified_title_is_malformed(works: None, raw: str) -> None:
    _, verdict = resolve_raw(raw)
    assert verdict.status == "malformed_identifier"
    assert verdict.evidence["identifiers"]["malformed"]


@pytest.mark.django_db
def test_a_broken_identifier_gives_way_to_a_verified_title(works: None) -> None:
    _, verdict = resolve_raw(
        "Yang F, Lim GP. Curcumin inhibits formation of amyloid beta oligomers and fibrils. "
        "J Biol Chem. 2005;280:5892-901. doi:10.1145"
    )
    assert (verdict.status, verdict.doi) == ("verified_exact", "10.1000/yang.1")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("raw", "status", "validated"),
    [
        # The parse agrees with the DOI's record: decided without the whole-string check.
        ("Yang F. Curcumin inhibits formation of amyloid beta oligomers and fibrils. "
         "J Biol Chem 2005. doi:10.1000/yang.1", "verified_exact", False),
        # The parse disagrees (another title): the whole string is checked and contradicts.
        ("Yang F. Lattice chromodynamics at finite density and temperature. "
         "J Biol Chem 2005. doi:10.1000/yang.1", "metadata_mismatch", True),
        # The year the parse read contradicts: the whole string is checked and agrees with it.
        ("Yang F. Curcumin inhibits formation of amyloid beta oligomers and fibrils. 1990. "
         "doi:10.1000/yang.1", "metadata_mismatch", True),
    ],
)  # fmt: skip
def test_a_resolving_identifier_is_checked_against_the_string_only_when_the_parse_disagrees(
    works: None, raw: str, status: str, validated: bool
) -> None:
    _, verdict = resolve_raw(raw)
    assert verdict.status == status, verdict.evidence
    assert verdict.evidence["step"] == "identifier"
    # Whole-string validation evidence says where the title was found; the parse's does not.
    assert ("title_found_at" in verdict.evidence["candidates"][0]) is validated
