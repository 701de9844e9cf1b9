"""The every-style evaluation's data (bench/style_render.py, bench/style_catalogue.py), no DB.

The works are written here in glutton-dev's format, so the test needs neither the data set nor
a database: it renders them in every row and checks each string carries what its style prints
and that each degradation does what it says.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from style_catalogue import NEGATIVE_PREFIX, catalogue_items  # noqa: E402
from style_render import (  # noqa: E402
    DEGRADATIONS,
    FULL_NAME_ROWS,
    NUMERIC,
    ROWS,
    STYLES,
    Author,
    author_list,
    gold_works,
    left_out,
    ocr_noise,
    render,
    shuffled_title,
    work_of,
)


def _ref(number: int, raw: str, doi: str, title: str, author: str, journal: str, volume: str,
         page: str) -> dict[str, Any]:  # fmt: skip
    return {"id": f"glutton-{number:05d}", "raw_string": raw, "doi": doi, "title": title,
            "first_author": author, "journal": journal, "volume": volume, "first_page": page}  # fmt: skip


REFS = [
    _ref(1, "Cotton PB, Lehman G, Vennes J, Geenen JE, Russell RCG, \nMeyers WC, et al. Endoscopic "
         "sphincterotomy complications and \ntheir management: an attempt at consensus. "
         "Gastrointest Endosc. \n1991;37(4):383-93.", "10.1016/S0016-5107(91)70740-2",
         "Endoscopic sphincterotomy complications and their management: an attempt at consensus",
         "Cotton", "Gastrointest Endosc", "37", "383"),
    _ref(2, "Mulder, C. H., & Hooimeijer, P. (2002). Leaving home in the Netherlands: Timing and "
         "first housing. \nJournal of Housing and the Built Environment, 17, 237-268.",
         "10.1023/A:1021166710567", "Leaving home in the Netherlands: Timing and first housing",
         "Mulder", "Journal of Housing and the Built Environment", "17", "237"),
    _ref(3, "Andolfatto P: Adaptive evolution of non-coding DNA in Drosophila. \nNature 2005, "
         "437:1149-1152.", "10.1038/nature04107",
         "Adaptive evolution of non-coding DNA in Drosophila", "", "Nature", "437", "1149"),
    _ref(4, "Baba T, Ara T, Hasegawa M et al. (2006) Construction of Escherichia coli K-12 "
         "in-frame, single-gene knock-out mutants. Mol Syst Biol 2:68", "10.1038/msb4100050",
         "Construction of Escherichia coli K-12 in-frame, single-gene knock-out mutants",
         "Wissenbach", "Mol Syst Biol", "2", "68"),
]  # fmt: skip
WORKS = gold_works(REFS)


def test_an_author_list_is_read_in_the_vancouver_and_the_comma_form() -> None:
    assert author_list("Ikeda S, de Parseval N, Kazazian HH Jr: Title. J 1990;1:2.") == (
        Author("Ikeda", "S."), Author("de Parseval", "N."), Author("Kazazian", "H. H."))  # fmt: skip
    assert author_list("Smith, J. A., & Doe, B. (2001). Title. J, 1, 2.") == (
        Author("Smith", "J. A."), Author("Doe", "B."))  # fmt: skip
    assert author_list("Endoscopic sphincterotomy in 408 patients. Endoscopy 1988;20:13") == ()


def test_work_metadata_comes_from_gold_and_the_raw_string() -> None:
    cotton, mulder, andolfatto, baba = WORKS
    assert (cotton.year, cotton.issue, cotton.pages) == (1991, "4", "383-393")
    assert [a.family for a in cotton.authors] == [
        "Cotton", "Lehman", "Vennes", "Geenen", "Russell", "Meyers"]  # fmt: skip
    assert cotton.authors[4].given == "R. C. G."
    assert (mulder.authors[1], mulder.pages, mulder.issue) == (
        Author("Hooimeijer", "P."), "237-268", "")  # fmt: skip
    assert andolfatto.authors == (Author("Andolfatto", "P."),)  # gold has no first author
    # The string's list starts with another name than gold's first author: gold's, alone.
    assert baba.authors == (Author("Wissenbach", "A."),)
    assert work_of(REFS[0]).doi == "10.1016/s0016-5107(91)70740-2"


@pytest.mark.parametrize("row", list(STYLES))
def test_every_style_prints_the_fields_of_the_work(row: str) -> None:
    for work in WORKS:
        text = render(work, row)
        folded = text.casefold()
        assert work.authors[0].family.casefold() in folded
        # The full-name rows print the journal's full name (journal_names.py), the rest gold's.
        journal = work.journal_full if row in FULL_NAME_ROWS and work.journal_full else work.journal
        assert journal.casefold() in folded
        assert re.search(rf"\b{work.volume}\b", text)
        assert work.first_page in text
        assert str(work.year) in text
        assert "doi" not in folded and work.doi not in folded
        title_words = re.findall(r"\w{5,}", work.title.casefold())
        if row.startswith("elsevier-without-titles"):  # and its full-name row
            assert not all(w in folded for w in title_words)
        else:
            assert all(w in folded for w in title_words), text
        if row in NUMERIC:  # the list label (Nature: "72."), then a space, as a list prints it
            number = str(work.list_number)
            assert re.match(rf"^[\[(]?{number}[\])]?\.? \S", text), text


def test_a_style_renders_as_the_csl_style_says() -> None:
    cotton = WORKS[0]
    label = cotton.list_number
    assert render(cotton, "vancouver") == (
        f"[{label}] Cotton PB, Lehman G, Vennes J, Geenen JE, Russell RCG, Meyers WC. Endoscopic "
        "sphincterotomy complications and their management: an attempt at consensus. "
        "Gastrointest Endosc 1991;37:383–93."
    )
    assert render(cotton, "elsevier-without-titles") == (
        f"[{label}] P.B. Cotton, G. Lehman, J. Vennes, J.E. Geenen, R.C.G. Russell, W.C. Meyers, "
        "Gastrointest Endosc 37 (1991) 383–393."
    )


def test_the_degradations_do_what_they_say() -> None:
    for work in WORKS:
        families = [a.family for a in work.authors]
        no_authors = render(work, "no-authors")
        assert not any(f in no_authors for f in families)
        assert no_authors.split(" ", 1)[1].startswith(work.title[:20])  # the title first
        one = render(work, "one-author-et-al")
        assert f"{families[0]} et al.," in one
        assert not any(f in one for f in families[1:])
        shuffled = render(work, "shuffled-title")
        assert work.title not in shuffled
        assert sorted(shuffled_title(work.title, work.doi).split()) == sorted(work.title.split())
        assert render(work, "ocr-noise") != render(work, "acs") or len(render(work, "acs")) < 60
    assert render(WORKS[0], "structured") == (
        "Cotton, PB, Lehman, G, Vennes, J, Geenen, JE, Russell, RCG, Meyers, WC. Endoscopic "
        "sphincterotomy complications and their management: an attempt at consensus. "
        "Gastrointest Endosc. 1991. 37. 4. 383-393"
    )
    assert set(DEGRADATIONS) | set(STYLES) == set(ROWS)


def _undamaged(text: str) -> str:
    """Return the text with what OCR noise changes made equal (spaces, l/1, O/0, rn/m)."""
    return text.replace(" ", "").replace("rn", "m").translate(str.maketrans("l0", "1O"))


def test_ocr_noise_damages_at_its_rate_and_only_as_it_says() -> None:
    text = render(WORKS[0], "acs") * 4
    noisy = ocr_noise(text, "seed")
    assert noisy == ocr_noise(text, "seed") != ocr_noise(text, "another seed")
    assert _undamaged(noisy) == _undamaged(text)
    assert ocr_noise(text, "seed", rate=0.0) == text
    changed = sum(
        a != b for a, b in zip(text.replace(" ", ""), noisy.replace(" ", ""), strict=False)
    )
    assert changed or noisy.count(" ") != text.count(" ")


def test_the_catalogue_leaves_works_out_and_adds_authored_look_alikes() -> None:
    items = list(catalogue_items(REFS, WORKS))
    gold = {i["DOI"] for i in items if not i["DOI"].startswith(NEGATIVE_PREFIX)}
    assert gold == {w.doi for w in WORKS if not left_out(w.doi)}
    negatives = [i for i in items if i["DOI"].startswith(NEGATIVE_PREFIX)]
    assert len(negatives) == 4 * len(WORKS)  # look-alikes of the works left out too
    assert all(i["author"] and i["author"][0]["given"] and i["issued"] for i in negatives)
    assert [left_out(w.doi) for w in WORKS] == [False, False, True, True]
    cotton = next(i for i in items if i["DOI"] == WORKS[0].doi)
    assert (cotton["page"], cotton["issue"], cotton["issued"]) == (
        "383-393",
        "4",
        {"date-parts": [[1991]]},
    )
    assert cotton["author"][4] == {"family": "Russell", "given": "R. C. G."}


def test_about_fifteen_percent_of_works_are_left_out() -> None:
    dois = [f"10.1234/work.{n}" for n in range(4000)]
    share = sum(map(left_out, dois)) / len(dois)
    assert 0.13 < share < 0.17
