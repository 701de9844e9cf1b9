"""What import_records says about a file that is not JSON: json's own words, once each."""

from __future__ import annotations

from pathlib import Path

import pytest

from curation.record.input_checks import RecordInputError, load_record


def test_a_control_character_is_placed_once_not_at_at(tmp_path: Path) -> None:
    text = '{"schema": "pith.paper-citation-record.v1",\n "thesis": "a\ttab"}'
    path = tmp_path / "a.json"
    path.write_text(text)
    column = len(text.split("\n")[1].split("\t")[0]) + 1

    with pytest.raises(RecordInputError) as refused:
        load_record(path)

    assert str(refused.value) == (
        f"{path}: $: not JSON: Invalid control character at line 2 column {column}"
    )


def test_other_json_errors_keep_their_words(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"schema": }')

    with pytest.raises(RecordInputError) as refused:
        load_record(path)

    assert str(refused.value) == f"{path}: $: not JSON: Expecting value at line 1 column 12"
