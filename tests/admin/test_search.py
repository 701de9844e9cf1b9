"""The curators' search finds words, hosts, path parts and identifiers, and nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from curation.admin.observations import text_search
from curation.models import Observation, Paper
from curation.services import reference_list_import

from .conftest import IMPORTER, Listed

CITING = "2501.00009"
QUEUE = "/admin/curation/observation/"
# Reference texts as papers print them; the number is the reference's index.
REFERENCES = {
    1: "NVIDIA. Fused optimizer crash. https://github.com/NVIDIA/apex/issues/1611",
    2: "NVIDIA. Megatron-LM pull request. https://github.com/ NVIDIA/Megatron- LM/pull/2018",
    3: "Y. LeCun, Y. Bengio, G. Hinton. Deep learning. Nature 521, 436-444 (2015). "
    "doi:10.1038/nature14539",
    4: "K. He, X. Zhang, S. Ren, J. Sun. Deep residual learning for image recognition. "
    "arXiv:1512.03385v1, 2015.",
    5: "J. Müller and A. Šimić. Gradient methods revisited. In Proc. ICML, 2021.",
    # Unrelated look-alikes: other hosts, a longer word, another id that shares a part.
    6: "A. Writer. Pipelines on gitlab.com for apexes of curves. 2020.",
    7: "B. Author. Other work. arXiv:1512.03386, 2015. doi:10.1038/nature14540",
}


@pytest.fixture
def listed(db: Any) -> dict[int, Observation]:
    """Return the references, stored through the reference-list service, by number."""
    now = timezone.now()
    Paper.objects.create(arxiv_id=CITING, title="Citing", submitted_at=now, last_updated=now)
    reference_list_import(
        arxiv_id=CITING,
        references=[Listed(n, str(n), raw) for n, raw in REFERENCES.items()],
        actor=IMPORTER,
        reason="search test",
    )
    return {o.reference_index: o for o in Observation.objects.filter(paper__arxiv_id=CITING)}


def found(term: str) -> set[int]:
    """Return the reference numbers the admin's search finds for term."""
    return set(
        text_search(Observation.objects.all(), term).values_list("reference_index", flat=True)
    )


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("github", {1, 2}),
        ("GitHub", {1, 2}),
        ("github.com", {1, 2}),
        ("NVIDIA/apex", {1}),
        ("apex", {1}),
        ("issues", {1}),
        ("megatron-lm", {2}),
        ("gitlab.com", {6}),
        ("apexes", {6}),
    ],
)
def test_words_hosts_and_paths_inside_urls_are_found(
    listed: dict[int, Observation], term: str, expected: set[int]
) -> None:
    assert found(term) == expected


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("10.1038/nature14539", {3}),
        ("https://doi.org/10.1038/NATURE14539", {3}),
        ("1512.03385", {4}),  # the text says arXiv:1512.03385v1
        ("arXiv:1512.03385", {4}),
        ("1512.03385v1", {4}),
        ("1512.03386", {7}),
    ],
)
def test_identifiers_in_the_text_are_found(
    listed: dict[int, Observation], term: str, expected: set[int]
) -> None:
    assert found(term) == expected


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("Müller", {5}),
        ("muller", {5}),
        ("MÜLLER", {5}),
        ("simic", {5}),
        ("Hinton", {3}),
        ("residual", {4}),
        ("residual recognition", {4}),  # every word, anywhere
        ("deep", {3, 4}),
    ],
)
def test_names_and_title_words_are_found_whatever_the_case_and_accents(
    listed: dict[int, Observation], term: str, expected: set[int]
) -> None:
    assert found(term) == expected


@pytest.mark.parametrize("term", ["gitlab.org", "apex residual", "nature14541", "///", "bitbucket"])
def test_what_no_reference_holds_finds_nothing(listed: dict[int, Observation], term: str) -> None:
    assert found(term) == set()


def test_the_queue_search_box_lists_only_what_matches(
    listed: dict[int, Observation], alice: Client
) -> None:
    page = alice.get(QUEUE, {"queue": "live", "q": "apex"}).content.decode()
    assert "Fused optimizer crash" in page
    assert "gitlab.com" not in page and "Megatron" not in page


def test_the_search_reads_its_index(listed: dict[int, Observation]) -> None:
    """The query's document is the index's very expression (else every search scans the table)."""
    sql, params = text_search(Observation.objects.all(), "NVIDIA/apex").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "obs_text_fts" in plan


def test_a_search_that_finds_nothing_in_the_queue_names_the_queues_that_have_it(
    resolved: Any, alice: Client
) -> None:
    """Issue 41 item 4: searching "to fix" for a decided reference said "0 results", no hint."""
    from .helpers import decide

    observation = resolved[2]
    decide(alice, observation, "no_canonical_record", reason="a software page")
    word = observation.raw_text.split()[0].strip(".,")
    body = alice.get(
        "/admin/curation/observation/", {"q": observation.raw_text[:60]}
    ).content.decode()
    assert "it is found in:" in body and "queue=no_record" in body, word
    # A search found nowhere has no other queue to name.
    assert (
        "it is found in:"
        not in alice.get("/admin/curation/observation/", {"q": "zzzqqq-none"}).content.decode()
    )
