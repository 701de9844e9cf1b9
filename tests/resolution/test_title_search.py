"""The two-pass title search (exact key, then full text only where the key did not settle it)
finds the records the one-statement search found: ties, siblings, misspelled titles."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import pytest
from django.db import connection

from curation.catalogue import records as catalogue
from curation.catalogue.records import TitleSearch
from curation.catalogue.text import QUERY_SEPARATOR, k_of_n
from curation.models import Paper
from curation.resolution.resolver import resolve_raw
from curation.resolution.services.catalogue_imports import refresh_title_words
from curation.states import ResolutionStatus

# The one-statement search this branch replaced: key OR full text, exact records first.
_ONE_STATEMENT = """
SELECT q.i, sub.arxiv_id FROM unnest(%s::int[], %s::text[], %s::text[], %s::int[])
    AS q(i, key, tsq, len)
CROSS JOIN LATERAL (
    SELECT p.arxiv_id FROM curation_paper p
    WHERE p.title_key = q.key
       OR to_tsvector('simple'::regconfig, COALESCE(p.title_norm, ''))
          @@ to_tsquery('simple', q.tsq)
    ORDER BY (p.title_key = q.key) DESC, abs(length(p.title_norm) - q.len)
    LIMIT 40
) sub
"""
TITLE = "Glueball spectra from anisotropic lattice QCD"
PAPERS = {
    "0901.00001": (TITLE, "Morningstar"),
    "0901.00002": (TITLE, "Chen"),  # the same title: a tie
    "0901.00003": (f"{TITLE} II", "Morningstar"),  # siblings holding every word
    "0901.00004": (f"Erratum: {TITLE}", "Morningstar"),
    "0901.00005": ("Lattice QCD glueball spectra from anisotropic actions", "Peardon"),
    "0901.00006": ("Glueball spectra from anisotropic lattice QCD and beyond", "Peardon"),
    "0901.00007": ("Glueball spectra from isotropic lattice QCD", "Lucini"),  # a near miss
    "0901.00008": ("Tissue cultures of the anisotropic kind", "Carrel"),
}


@pytest.fixture
def glueballs() -> None:
    for arxiv_id, (title, author) in PAPERS.items():
        Paper.objects.create(arxiv_id=arxiv_id, title=title, first_author=author.lower(),
                             authors=author, year=2009, in_catalogue=True)  # fmt: skip
    # Common words: "lattice" and "qcd" are in many titles, "glueball" in fewer.
    for n in range(30):
        Paper.objects.create(arxiv_id=f"0902.{n:05d}", title=f"Lattice QCD thermodynamics {n}",
                             first_author="karsch", authors="Karsch", in_catalogue=True)  # fmt: skip
    for n in range(8):
        Paper.objects.create(arxiv_id=f"0903.{n:05d}", title=f"Spectra of lattice QCD {n}",
                             first_author="karsch", authors="Karsch", in_catalogue=True)  # fmt: skip
    refresh_title_words()


def _old_tsquery(query: str | None) -> str:
    """Return the one expression the old search sent: every combination ORed."""
    if not query:
        return "zzqxnomatchqxzz"
    return " | ".join(f"({part})" for part in query.split(QUERY_SEPARATOR))


def _one_statement(searches: Sequence[TitleSearch]) -> list[set[str]]:
    found: list[set[str]] = [set() for _ in searches]
    params = [
        list(range(len(searches))),
        [s.key or "zzqxnomatchqxzz" for s in searches],
        [_old_tsquery(s.query) for s in searches],
        [s.length for s in searches],
    ]
    with connection.cursor() as cursor:
        cursor.execute(_ONE_STATEMENT, params)
        for i, arxiv_id in cursor.fetchall():
            found[i].add(arxiv_id)
    return found


def _searches(titles: Sequence[str]) -> list[TitleSearch]:
    words = {w for t in titles for w in catalogue.title_norm(t).split()}
    frequencies = catalogue.word_frequencies(words)
    return [TitleSearch.for_title(t, frequencies) for t in titles]


@pytest.mark.django_db
def test_two_passes_find_the_ties_siblings_and_misspellings_one_statement_found(
    glueballs: None,
) -> None:
    titles = [
        TITLE,  # exact: the tie and every sibling holding all its words
        f"{TITLE} II",  # exact: its shorter sibling is in the string, and loses to it
        "Glueball spectra from anisotropic latice QCD",  # misspelled: no key, full text
        "Glueball spectra from anisotropic lattice",  # cut: no key
        "Glueball spectra from anisotropic lattice QCD and byond",
    ]
    searches = _searches(titles)
    two_passes = [
        {c.arxiv_id for c in found} for found in catalogue.title_candidates_batch(searches)
    ]
    one_statement = _one_statement(searches)
    for i in (2, 3, 4):  # no exact record: the same full-text search as before
        assert two_passes[i] == one_statement[i], titles[i]
        assert {"0901.00001", "0901.00002"} <= two_passes[i]
    # Beside an exact record the one-statement search also returned every record sharing most
    # of its words; two passes return those holding its two rarest: the ties, every title
    # holding all its words, the same words in another order.
    exact_and_siblings = {"0901.00001", "0901.00002", "0901.00003", "0901.00004", "0901.00006"}
    assert exact_and_siblings | {"0901.00005"} <= two_passes[0] <= one_statement[0]
    assert "0901.00003" in two_passes[1] and two_passes[1] <= one_statement[1]


@pytest.mark.django_db
def test_exact_records_come_first_and_the_limit_holds(glueballs: None) -> None:
    (found,) = catalogue.title_candidates_batch(_searches([TITLE]))
    assert {c.arxiv_id for c in found[:2]} == {"0901.00001", "0901.00002"}
    assert len(found) <= catalogue.CANDIDATE_LIMIT
    assert len({c.arxiv_id for c in found}) == len(found)  # no record twice


@pytest.mark.django_db
def test_a_tie_stays_a_tie_and_a_sibling_wins_over_its_shorter_title(glueballs: None) -> None:
    _, tie = resolve_raw(f"Morningstar, C. and Chen, Y. {TITLE}. Phys. Rev. D (2009).")
    assert tie.status == ResolutionStatus.UNRESOLVED
    _, sibling = resolve_raw(f"Morningstar, C. {TITLE} II. Phys. Rev. D (2009).")
    assert sibling.status == ResolutionStatus.VERIFIED_EXACT
    assert sibling.arxiv_id == "0901.00003"


@pytest.mark.django_db
@pytest.mark.parametrize(("n", "need"), [(1, 1), (2, 2), (3, 2), (4, 3), (5, 3), (3, 3)])
def test_k_of_n_matches_what_every_combination_ored_matches(n: int, need: int) -> None:
    words = ["alpha", "bravo", "charlie", "delta", "echo"][:n]
    every_combination = " | ".join(f"({' & '.join(g)})" for g in combinations(words, need))
    parts = k_of_n(words, need).split(QUERY_SEPARATOR)
    with connection.cursor() as cursor:
        for size in range(n + 1):
            for held in combinations([*words, "other"], size):
                cursor.execute(
                    "SELECT to_tsvector('simple', %s) @@ ANY(ARRAY(SELECT to_tsquery('simple', t) "
                    "FROM unnest(%s::text[]) t)), to_tsvector('simple', %s) @@ "
                    "to_tsquery('simple', %s)",
                    [" ".join(held), parts, " ".join(held), every_combination],
                )
                by_parts, by_combinations = cursor.fetchone()
                assert by_parts == by_combinations == (len(set(held) & set(words)) >= need)
