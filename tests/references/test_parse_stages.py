"""The stages of parse_reference, each on its own: the body the fields are read from, the
authors and what follows them, title/venue/journal reference, the title's judgement, the venue.
"""

from __future__ import annotations

import pytest

from curation.references import extract_identifiers
from curation.references.parse import (
    authors_and_rest,
    field_body,
    judge_title,
    title_venue_and_journal,
    venue_name,
)


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("[13 ]B. Buyens, Deep nets. arXiv:1706.03762 [cs.LG]", "B. Buyens, Deep nets."),
        ("26-Vellin J-F, Title here ( 2012 ).", "Vellin J-F, Title here (2012)."),
        ("smith2020-3: A. Smith. Title. doi:10.1000/xyz", "A. Smith. Title."),
    ],
)
def test_field_body_drops_identifiers_labels_and_bracket_spacing(text: str, body: str) -> None:
    assert field_body(text, extract_identifiers(text)) == body


@pytest.mark.parametrize(
    ("body", "surnames", "rest"),
    [
        (
            "Smith, J., Doe, A. (2019). Deep learning of things. Nature, 5, 1-2.",
            ["Smith", "Doe"],
            "Deep learning of things. Nature, 5, 1-2.",
        ),
        ("NVIDIA. Megatron-LM. 2024.", ["NVIDIA"], "Megatron-LM. 2024"),
        (
            "Feng Luo and Stephan Tillmann, Angle structures and normal surfaces, Trans. AMS 360",
            ["Luo", "Tillmann"],
            "Angle structures and normal surfaces, Trans. AMS 360",
        ),
        (
            "Cella G, Takamori A 2005 Monolithic geometric anti-spring blades",
            ["Cella", "Takamori"],
            "Monolithic geometric anti-spring blades",
        ),
    ],
)
def test_authors_and_rest(body: str, surnames: list[str], rest: str) -> None:
    authors, after = authors_and_rest(body)
    assert ([a.surname for a in authors], after) == (surnames, rest)


def test_the_title_stops_at_a_journal_reference() -> None:
    title, venue, journal = title_venue_and_journal(
        "Lattice QCD at finite density Phys. Rev. D 65, 094516 (2002)", named=True
    )
    assert (title, venue) == ("Lattice QCD at finite density", "Phys. Rev. D 65, 094516 (2002)")
    assert journal is not None and (journal.journal, journal.volume) == ("Phys. Rev. D", "65")


def test_a_journal_reference_alone_has_no_title() -> None:
    title, venue, journal = title_venue_and_journal("Phys. Rev. D 65, 094516 (2002)", named=True)
    assert (title, venue, journal is not None) == (None, "Phys. Rev. D 65, 094516 (2002)", True)


def test_judge_title_cleans_a_usable_title() -> None:
    kept = judge_title(
        "Deep learning, 2nd edition", named=True, venue=None, rest="x", identified=False
    )
    assert kept == ("Deep learning", None)


def test_a_name_like_title_between_names_and_a_venue_is_kept() -> None:
    title = "Cell Proliferation, Reactive Oxygen and Cellular Glutathione"
    kept = judge_title(title, named=True, venue="Dose Response", rest="x", identified=False)
    assert kept == (title, None)


def test_only_names_is_a_piece_of_an_author_list_unless_identified() -> None:
    assert judge_title(None, named=True, venue=None, rest=" . ", identified=False) == (
        None,
        "author_fragment",
    )
    assert judge_title(None, named=True, venue=None, rest=" . ", identified=True) == (
        None,
        "no_title",
    )


def test_a_title_with_a_problem_is_dropped() -> None:
    title, problem = judge_title("1999", named=False, venue=None, rest="1999", identified=False)
    assert title is None and problem not in (None, "no_title")


@pytest.mark.parametrize(
    ("venue", "name"),
    [
        ("In: Proceedings of NeurIPS.", "Proceedings of NeurIPS"),
        ("(2023)", None),
        ("", None),
        (None, None),
    ],
)
def test_venue_name(venue: str | None, name: str | None) -> None:
    assert venue_name(venue) == name
