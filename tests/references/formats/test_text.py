from curation.references import read_references


def raws(text: str) -> list[tuple[str | None, str]]:
    return [(r.label, r.raw) for r in read_references(text, "text")]


def test_one_reference_per_line() -> None:
    assert raws("A. Smith. One. 2020.\n\nB. Jones. Two. 2021.\n") == [
        (None, "A. Smith. One. 2020."),
        (None, "B. Jones. Two. 2021."),
    ]


def test_bracket_numbers_with_wrapped_lines() -> None:
    text = "References\n[1] A. Smith. A paper about\nthings. 2020.\n[2] B. Jones. Deep Learn-\ning. 2021.\n"
    assert raws(text) == [
        ("1", "A. Smith. A paper about things. 2020."),
        ("2", "B. Jones. Deep Learn- ing. 2021."),
    ]


def test_a_year_at_line_start_is_not_a_reference_number() -> None:
    text = (
        "1. Smith, J. Some title. Journal,\n2022. 12(3):1-10.\n"
        "2. Jones, K. Another title. Venue,\n2023. 4:5-6.\n"
    )
    assert raws(text) == [
        ("1", "Smith, J. Some title. Journal, 2022. 12(3):1-10."),
        ("2", "Jones, K. Another title. Venue, 2023. 4:5-6."),
    ]


def test_paragraphs_separated_by_blank_lines() -> None:
    text = "First ref line one\ncontinues here.\n\nSecond ref\nline two.\n"
    refs = list(read_references(text, "text"))
    assert [(r.index, r.line, r.raw) for r in refs] == [
        (1, 1, "First ref line one continues here."),
        (2, 4, "Second ref line two."),
    ]
