"""A bounded number of candidates validated per reference, the strongest first, and title
searches shaped for the GIN index (issue 43 item 2: cost flat as the catalogue grows)."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest

from curation.catalogue import records as catalogue
from curation.catalogue.records import Candidate, TitleSearch, title_candidates_batch
from curation.catalogue.selectivity import all_but_one, title_tsquery
from curation.catalogue.text import k_of_n
from curation.models import Paper
from curation.resolution import matching
from curation.resolution.resolver import resolve_raw
from curation.resolution.services.catalogue_imports import refresh_title_words, store_crossref_works
from curation.resolution.validate import RawText
from curation.states import ResolverSource

RAW = (
    "Yang F, Lim GP, Begum AN, Ubeda OJ. Curcumin inhibits formation of amyloid \n"
    "beta oligomers and fibrils. J Biol Chem. 2005;280:5892-901."
)
GOLD_TITLE = "Curcumin inhibits formation of amyloid beta oligomers and fibrils"


def _candidate(n: int, title: str, volume: str = "", page: str = "", author: str = "") -> Candidate:
    return Candidate(source=ResolverSource.DOI, title=title, title_norm=title.lower(),
                     title_key=title.lower().replace(" ", ""), years=(2005,), first_author=author,
                     authors=author, doi=f"10.1000/c.{n}", volume=volume, first_page=page)  # fmt: skip


def test_the_shortlist_keeps_the_budget_and_the_strongest_in_any_order() -> None:
    text = RawText(RAW)
    gold = _candidate(0, GOLD_TITLE.lower(), "280", "5892", "Yang")
    others = [_candidate(n, f"amyloid beta oligomers in model {n}", "280", str(6000 + n))
              for n in range(1, 60)]  # fmt: skip
    picked = matching.shortlist(text, [*others, gold], budget=8)
    assert len(picked) == 8 and picked[0] == gold
    shuffled = others + [gold]
    random.Random(3).shuffle(shuffled)
    assert matching.shortlist(text, shuffled, budget=8) == picked  # whatever order they came in
    assert matching.shortlist(text, [gold, gold], budget=8) == [gold]  # one record, once


@pytest.fixture
def crowded() -> None:
    """The gold work among more look-alikes than the budget: same volume and page in other
    journals, near-identical titles in the same journal, the same first author."""
    works: list[dict[str, Any]] = [
        {"DOI": "10.1000/yang.1", "title": [GOLD_TITLE], "author": [{"family": "Yang"},
         {"family": "Lim"}], "container-title": ["Journal of Biological Chemistry"],
         "volume": "280", "page": "5892-5901", "issued": {"date-parts": [[2005]]}},
    ]  # fmt: skip
    for n in range(40):
        works.append({"DOI": f"10.1000/page.{n}", "title": [f"Unrelated report number {n}"],
                      "author": [{"family": "Other"}], "container-title": [f"Journal {n} of Things"],
                      "volume": "280", "page": "5892", "issued": {"date-parts": [[2005]]}})  # fmt: skip
        works.append({"DOI": f"10.1000/near.{n}", "title": [f"{GOLD_TITLE} in model {n}"],
                      "author": [{"family": "Yang" if n % 2 else "Chen"}],
                      "container-title": ["Journal of Biological Chemistry"], "volume": "280",
                      "page": str(6000 + n), "issued": {"date-parts": [[2005]]}})  # fmt: skip
    store_crossref_works(works)
    refresh_title_words()


@pytest.mark.django_db
def test_a_work_among_more_look_alikes_than_the_budget_is_linked_validating_the_budget(
    crowded: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    validated = []
    validate = matching.validate

    def counting(text: RawText, candidate: Candidate, **kwargs: Any) -> Any:
        validated.append(candidate.doi)
        return validate(text, candidate, **kwargs)

    monkeypatch.setattr(matching, "validate", counting)
    _, verdict = resolve_raw(RAW)
    assert (verdict.status, verdict.doi) == ("verified_exact", "10.1000/yang.1"), verdict.evidence
    # 81 works were found (the gold and the 80 look-alikes): the budget's worth validated.
    assert 0 < len(validated) <= matching.VALIDATION_BUDGET < 81


def test_all_but_one_needs_three_of_four_as_separate_conjunctions() -> None:
    assert all_but_one(["a", "b", "c", "d"]).split(";") == [
        "b & c & d", "a & c & d", "a & b & d", "a & b & c"
    ]  # fmt: skip
    assert all_but_one(["a", "b"]) == "a & b"
    assert "|" not in (title_tsquery("spectra from anisotropic lattice glueball qcd") or "")


@pytest.mark.django_db
def test_all_but_one_finds_the_titles_three_of_four_found() -> None:
    words = ["glueball", "anisotropic", "spectra", "lattice"]
    titles = [" ".join(c) + " study" for k in (1, 2, 3, 4) for c in combinations(words, k)]
    for n, title in enumerate(titles):
        Paper.objects.create(arxiv_id=f"0901.{n:05d}", title=title, first_author="a",
                             authors="A", in_catalogue=True)  # fmt: skip
    before = TitleSearch("zzz", k_of_n(words, 3), 30)
    now = TitleSearch("zzz", all_but_one(words), 30)
    old, new = ({c.title for c in found} for found in title_candidates_batch([before, now]))
    assert new == old and len(new) == 5  # the four titles of three words and the one of four


@pytest.mark.django_db
def test_beside_an_exact_match_only_titles_holding_its_rarest_words_are_read() -> None:
    """Its two rarest words go together in many other titles: those are not its siblings."""
    title = "Clinical outcomes of patients with chronic kidney disease"
    for n in range(60):
        Paper.objects.create(arxiv_id=f"0902.{n:05d}", title=f"Chronic kidney trials {n}",
                             first_author="b", authors="B", in_catalogue=True)  # fmt: skip
    for n in range(100):
        Paper.objects.create(arxiv_id=f"0903.{n:05d}",
                             title=f"Clinical outcomes in patients with disease, report {n}",
                             first_author="c", authors="C", in_catalogue=True)  # fmt: skip
    Paper.objects.create(arxiv_id="0901.00001", title=title, first_author="a", authors="A",
                         year=2009, in_catalogue=True)  # fmt: skip
    Paper.objects.create(arxiv_id="0901.00002", title=f"Erratum: {title}", first_author="a",
                         authors="A", year=2009, in_catalogue=True)  # fmt: skip
    refresh_title_words()
    from curation.catalogue.records import word_frequencies

    frequencies = word_frequencies(title.lower().split())
    (found,) = title_candidates_batch([TitleSearch.for_title(title, frequencies)])
    assert {c.arxiv_id for c in found} == {"0901.00001", "0901.00002"}


def _at_page_one(doi: str, journal: str, author: str) -> dict[str, Any]:
    return {"DOI": doi, "type": "journal-article", "title": [f"Report {doi}"],
            "container-title": [journal], "volume": "12", "page": "1-9",
            "issued": {"date-parts": [[1990]]}, "author": [{"family": author, "given": "A."}]}  # fmt: skip


@pytest.mark.django_db
def test_a_locator_reads_a_bounded_number_of_works_the_strings_journal_first() -> None:
    """Many journals have a volume 12 with a page 1: the pair reads at most LOCATOR_PER_PAIR
    works, the one whose journal the string names (written in full or abbreviated) first,
    however the DOIs sort."""
    works = [_at_page_one(f"10.1000/page.one.{n:02d}", f"Journal of Topic {n}", f"Okafor{n}")
             for n in range(3 * catalogue.LOCATOR_PER_PAIR)]  # fmt: skip
    works.append(_at_page_one("10.1000/zz.glaciology", "Annals of Glaciology", "Hallet"))
    store_crossref_works(works)
    for raw in ("J. Smith, Ann. Glaciol. 12 (1990) 1–9.", "J. Smith, Annals of Glaciology 12, 1"):
        search = matching.locator_search(RawText(raw))
        found = catalogue.locator_candidates([search])[0]
        assert len(found) <= catalogue.LOCATOR_PER_PAIR * len(search.pairs)
        assert "10.1000/zz.glaciology" in {c.doi for c in found}, raw
    # No journal named: the first author ranks the work in.
    found = catalogue.locator_candidates([matching.locator_search(RawText("Hallet B. 12:1"))])[0]
    assert "10.1000/zz.glaciology" in {c.doi for c in found}
