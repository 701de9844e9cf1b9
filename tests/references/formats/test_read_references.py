import pytest

from curation.references import ReferenceInputError, detect_format, read_references


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("@article{k, title={T}}", "bib"),
        ("\\begin{thebibliography}{9}\n\\bibitem{a} A.", "bbl"),
        ("<TEI xmlns='http://www.tei-c.org/ns/1.0'/>", "tei"),
        ("<article><back><ref-list/></back></article>", "jats"),
        ("[1] A. Smith. Title. 2020.", "text"),
        ("Email me @ noon", "text"),
    ],
)
def test_detect_format(text: str, fmt: str) -> None:
    assert detect_format(text) == fmt


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the file is empty"),
        (b"  \n\n ", "the file is empty"),
        (b"%PDF-1.7\n...", "this is a PDF file"),
        (bytes(range(256)) * 4, "looks binary"),
        (b"Good line\nbad \xff byte here\n", r"line 2, column 5: byte 0xff is not valid UTF-8"),
        (b"References\n", "no references found"),
    ],
)
def test_bad_input_gives_a_clear_error(data: bytes, message: str) -> None:
    with pytest.raises(ReferenceInputError, match=message):
        list(read_references(data, name="refs.txt"))


def test_invalid_utf8_can_be_read_with_replacement() -> None:
    (ref,) = read_references(b"Caf\xe9 paper, 2020.", errors="replace")
    assert ref.raw == "Caf\ufffd paper, 2020."


def test_nul_bytes_are_removed_and_flagged() -> None:
    refs = list(read_references(b"A ref with a NUL\x00 inside, 2020.\nAnother one, 2021.\n"))
    assert refs[0].raw == "A ref with a NUL inside, 2020."
    assert refs[0].problems == ("control_characters_removed",)
    assert refs[1].problems == ()


def test_a_five_megabyte_reference_is_cut_and_flagged() -> None:
    (ref,) = read_references("Smith, J. A title. " + "word " * 1_000_000)
    assert len(ref.raw) == 8_192
    assert ref.problems[0] == "truncated_from_5000018_chars"


def test_the_cut_is_a_parameter() -> None:
    (ref,) = read_references("Smith, J. A title of some length. 2020.", max_chars=12)
    assert ref.raw == "Smith, J. A "
    assert ref.problems == ("truncated_from_39_chars",)


def test_twenty_thousand_references_stream_in_order() -> None:
    data = "\n".join(f"[{i}] Author {i}. Title {i}. 2020." for i in range(1, 20_001))
    stream = read_references(data)
    first = next(stream)
    assert (first.index, first.label) == (1, "1")
    *_, last = stream
    assert (last.index, last.label, last.raw) == (
        20_000,
        "20000",
        "Author 20000. Title 20000. 2020.",
    )


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ReferenceInputError, match="unknown format 'ris'"):
        list(read_references("x", "ris"))
