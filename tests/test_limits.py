"""curation.limits: bounded line reading, escaped NULs, and nesting found without recursion."""

from __future__ import annotations

import io
import json

import pytest

from curation.limits import (
    JsonTooDeep,
    container_too_deep,
    drop_escaped_nul,
    loads_bounded,
    nests_within,
    read_line,
    too_deep_at,
)


def test_read_line_returns_lines_and_reads_past_a_long_one_without_holding_it() -> None:
    handle = io.BytesIO(b"short\n" + b"x" * 5000 + b"\n" + b"exactly10!\n" + b"tail" * 3000)

    assert read_line(handle, 10) == (b"short\n", 6)
    assert read_line(handle, 10) == (None, 5001)
    assert read_line(handle, 10) == (b"exactly10!\n", 11)  # ten bytes fit, the line end aside
    assert read_line(handle, 10) == (None, 12_000)  # a last line without a line end
    assert read_line(handle, 10) == (b"", 0)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (rb'{"t": "a\u0000b"}', "ab"),
        (rb'{"t": "a\\u0000b"}', "a\\u0000b"),  # an escaped backslash, then the text u0000
        (rb'{"t": "a\\\u0000b"}', "a\\b"),  # an escaped backslash, then an escaped NUL
        (rb'{"t": "plain"}', "plain"),
    ],
)
def test_drop_escaped_nul_removes_only_real_nul_escapes(line: bytes, expected: str) -> None:
    assert json.loads(drop_escaped_nul(line))["t"] == expected


def test_nesting_is_located_by_path_when_parsed_and_by_position_when_not() -> None:
    assert container_too_deep({"a": [[1], {"b": [2]}]}, 3) == "$.a[1].b"
    assert container_too_deep({"a": [[1], {"b": [2]}]}, 4) is None
    assert too_deep_at('{"s": "[[[[", "x":\n [[[1]]]}', 3) == (2, 4)  # brackets in strings skipped
    with pytest.raises(JsonTooDeep) as caught:
        loads_bounded("[" * 200_000 + "]" * 200_000, 64)
    assert caught.value.where == "line 1 column 65"
    assert loads_bounded("[[[1]]]", 3) == [[[1]]]


def _nested(depth: int) -> object:
    value: object = 1
    for level in range(depth - 1):
        value = [value] if level % 2 else {"k": value}
    return value


def _strings_hiding_depth(depth: int) -> str:
    # Strings whose brackets would close the containers around a deep value, or open more.
    return json.dumps(
        {"a": "]]]]}}}}" * 5, "b": "\\", "c": '\\"[[[', "deep": _nested(depth), "d": "[[{{" * 5}
    )


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(_nested(64)),
        json.dumps(_nested(65)),
        json.dumps(_nested(66)),
        json.dumps({"x": [_nested(63), _nested(10), "[[[[[[[[", {"y": [[], {}]}]}),
        _strings_hiding_depth(63),
        _strings_hiding_depth(64),
        json.dumps([_nested(40), "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", _nested(40)]),
        json.dumps([{"a": "\\"}, {"b": '\\"'}, '\\"', _nested(65)]),
        json.dumps(['"[', _nested(64), ']"']),
    ],
)
def test_nests_within_never_clears_json_nested_past_the_limit(text: str) -> None:
    """It may say "not sure" (False) of shallow text, never "within" (True) of deep text."""
    deep = container_too_deep(json.loads(text), 64) is not None
    cleared = nests_within(text.encode(), 64)
    assert not (deep and cleared)
    assert cleared or deep  # and the shallow ones here are all cleared, sparing the walk
