"""The common citation styles' layouts: each gives its authors, title, container and locator."""

import pytest

from curation.references import parse_reference
from curation.references.locators import read_locator

TITLE = "Deep learning of things"


def _fields(raw: str) -> tuple:
    ref = parse_reference(raw)
    surnames = [a.surname for a in ref.authors]
    return (surnames, ref.title, ref.container, ref.volume, ref.issue, ref.first_page, ref.year)


@pytest.mark.parametrize(
    ("raw", "title", "container"),
    [
        (  # IEEE
            "J. Smith and A. Doe, “Deep learning of things,” J. Name, vol. 12, no. 3, "
            "pp. 45–67, 2003.",
            TITLE,
            "J. Name",
        ),
        (  # Vancouver
            "Smith J, Doe A. Deep learning of things. J Name. 2003;12(3):45-67.",
            TITLE,
            "J Name.",
        ),
        (  # Chicago author-date
            "Smith, John, and Ann Doe. 2003. “Deep Learning of Things.” J. Name 12 (3): 45–67.",
            "Deep Learning of Things",
            "J. Name",
        ),
        (  # MLA
            "Smith, John, and Ann Doe. “Deep Learning of Things.” J. Name, vol. 12, no. 3, 2003, "
            "pp. 45–67.",
            "Deep Learning of Things",
            "J. Name",
        ),
        (  # Harvard
            "Smith, J. and Doe, A. (2003) ‘Deep learning of things’, J. Name, 12(3), pp. 45–67.",
            TITLE,
            "J. Name",
        ),
        (  # full-stop-separated structured rendering
            "Smith, John, Doe, Ann. Deep learning of things. J. Name. 2003. 12. 3. 45-67",
            TITLE,
            "J. Name",
        ),
    ],
)
def test_each_style_gives_every_field(raw: str, title: str, container: str) -> None:
    assert _fields(raw) == (["Smith", "Doe"], title, container, "12", "3", "45", 2003)


@pytest.mark.parametrize(
    ("raw", "container", "volume", "first_page", "year"),
    [
        (
            "Smith, J.; Doe, A. J. Am. Chem. Soc. 2010, 132, 1234.",
            "J. Am. Chem. Soc.",
            "132",
            "1234",
            2010,
        ),  # fmt: skip
        (
            "J. Smith and A. Doe, Phys. Rev. Lett. 99, 123 (2007).",
            "Phys. Rev. Lett.",
            "99",
            "123",
            2007,
        ),  # fmt: skip
        ("J. Smith, A. Doe, Cell 12 (2003) 345–350.", "Cell", "12", "345", 2003),
        (
            "J. Smith, A. Doe, in: B. Editor (Ed.), Handbook of Things, Springer, Berlin, 2003, "
            "pp. 12–30.",
            "Handbook of Things",
            None,
            "12",
            2003,
        ),
        (
            "Smith, J.; Doe, A. In Proceedings of the 12th International Conference on Things; "
            "ACM: New York, 2010; pp 12–30.",
            "Proceedings of the 12th International Conference on Things",
            None,
            "12",
            2010,
        ),
    ],
)
def test_title_less_styles_give_the_venue_and_locator_but_no_title(
    raw: str, container: str, volume: str | None, first_page: str, year: int
) -> None:
    ref = parse_reference(raw)
    assert [a.surname for a in ref.authors] == ["Smith", "Doe"]
    assert ref.title is None
    assert (ref.container, ref.volume, ref.first_page, ref.year) == (
        container,
        volume,
        first_page,
        year,
    )


def test_a_chapter_names_its_book_not_its_editor() -> None:
    ref = parse_reference(
        "Smith, J., Doe, A.: Deep things. In: Editor, B. (ed.) Handbook of Things, pp. 12-30. "
        "Springer, Berlin (2003)"
    )
    assert (ref.title, ref.container, ref.first_page) == ("Deep things", "Handbook of Things", "12")


def test_a_series_gives_its_name_and_volume() -> None:
    ref = parse_reference(
        "Smith, J., Doe, A.: Deep things. In: Lecture Notes in Computer Science, vol. 1234, "
        "pp. 12–30. Springer, Berlin (2003)"
    )
    assert (ref.container, ref.volume, ref.first_page) == (
        "Lecture Notes in Computer Science",
        "1234",
        "12",
    )


def test_an_acs_year_is_never_read_as_the_volume() -> None:
    ref = parse_reference(
        "Cotton, C. Endoscopic Sphincterotomy Complications: Preliminary Results. "
        "Gastrointest Endosc 1997, 45 (2), AB129."
    )
    assert ref.volume != "1997"
    assert ref.year == 1997


def test_a_bmc_reference_gives_volume_issue_and_first_page() -> None:
    ref = parse_reference(
        "Gordo I, Campos PRA: Adaptive evolution in a spatially structured asexual population. "
        "Genetica 2006, 127(1-3):217-229."
    )
    assert (ref.container, ref.volume, ref.issue, ref.first_page) == (
        "Genetica",
        "127",
        "1-3",
        "217",
    )


@pytest.mark.parametrize(
    ("raw", "surname", "title"),
    [
        (
            "Rasley et al. DeepSpeed: System optimizations enable training deep learning models "
            "with over 100 billion parameters. In KDD, 2020.",
            "Rasley",
            "DeepSpeed: System optimizations enable training deep learning models with over 100 "
            "billion parameters",
        ),
        (
            "Y. He; DeepSpeed: System optimizations enable training deep learning models. "
            "In KDD, 2020.",
            "He",
            "DeepSpeed: System optimizations enable training deep learning models",
        ),
    ],
)
def test_names_before_the_title_stay_out_of_it(raw: str, surname: str, title: str) -> None:
    ref = parse_reference(raw)
    assert (ref.first_author_surname, ref.title) == (surname, title)


@pytest.mark.parametrize(
    "raw",
    [
        "[99]Y. Patil, Bioconjug Chem 19 (2008) 1396.",
        "230.Patil, Y.: Bioconjug Chem. 19, 1396 (2008).",
        "160 Y. Patil, Bioconjug Chem 19, 1396 (2008).",
    ],  # fmt: skip
)
def test_the_list_numbers_csl_prints_are_not_part_of_the_reference(raw: str) -> None:
    ref = parse_reference(raw)
    assert (ref.first_author_surname, ref.volume, ref.first_page) == ("Patil", "19", "1396")


@pytest.mark.parametrize(
    ("venue", "issue"),
    [
        ("Cell 19 (2008) 1396", None),  # Elsevier: the parenthesis holds the year
        ("J Name, 12(3), 45-67", "3"),
        ("J Name, vol. 12, no. 4, pp. 45-67", "4"),
        ("Science 329(5998):1521", "5998"),
    ],
)
def test_an_issue_is_read_only_where_marked(venue: str, issue: str | None) -> None:
    assert read_locator(venue).issue == issue


def test_volume_issue_and_container_go_into_the_dict() -> None:
    data = parse_reference("Smith J, Doe A. Deep things. J Name. 2003;12(3):45-67.").to_dict()
    assert (data["container"], data["volume"], data["issue"]) == ("J Name.", "12", "3")
