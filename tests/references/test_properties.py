from hypothesis import given, settings
from hypothesis import strategies as st

from curation.references import (
    compact_title,
    extract_identifiers,
    normalize_reference_text,
    normalize_title,
    parse_reference,
    read_references,
)
from curation.references.formats import ReferenceInputError

reference_like = st.text(
    alphabet=st.sampled_from(list("abcXYZ019 .,:;-–()[]{}\"'/\\_@&%#~\u00e9\u00c3\u00a9\x00\n")),
    max_size=200,
) | st.text(max_size=200)


@settings(max_examples=300, deadline=None)
@given(reference_like)
def test_parse_never_raises_and_is_json_ready(text: str) -> None:
    data = parse_reference(text).to_dict()
    assert isinstance(data["title_usable"], bool)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_normalize_reference_text_is_idempotent(text: str) -> None:
    once = normalize_reference_text(text)
    assert normalize_reference_text(once) == once
    assert "\x00" not in once


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_normalize_title_is_idempotent(text: str) -> None:
    once = normalize_title(text)
    assert normalize_title(once) == once
    assert compact_title(text) == once.replace(" ", "")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_identifier_extraction_never_raises(text: str) -> None:
    extract_identifiers(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(["auto", "text", "bib", "bbl", "tei", "jats"]))
def test_reading_arbitrary_bytes_gives_references_or_a_clear_error(data: bytes, fmt: str) -> None:
    try:
        for ref in read_references(data, fmt):
            assert "\x00" not in ref.raw and ref.index >= 1
    except ReferenceInputError as exc:
        assert str(exc).startswith("<input>:")
