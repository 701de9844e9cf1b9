"""The parse kept with an observation reads back as the parse itself, and only from this parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curation.references import parse_reference
from curation.references.stored import PARSE_VERSION, parse_from_stored, stored_parse

FIXTURES = Path(__file__).parent / "fixtures"
SEED = (FIXTURES / "seed_page_verifying_computational_graphs.txt").read_text().splitlines()
LABELLED = [
    json.loads(line)["raw"]
    for name in ("labelled_references.jsonl", "holdout_references.jsonl")
    for line in (FIXTURES / name).read_text().splitlines()
    if line.strip()
]
# Repairs, a malformed id, an old-style id with version, GitHub, an artefact, an empty text.
EDGES = [
    "https://github.com/ NVIDIA/Megatron- LM/issues/1611",
    "Smith, J. A study. arXiv:1913.12345 (2019).",
    "Doe, A. Strings. hep-th/9711200v3. doi:10.1000/x.y",
    "write newline",
    "",
]


@pytest.mark.parametrize("raw", [*EDGES, *[s for s in SEED if s.strip()][:200], *LABELLED])
def test_a_stored_parse_reads_back_as_the_parse(raw: str) -> None:
    parsed = parse_reference(raw)
    stored = json.loads(json.dumps(stored_parse(parsed)))  # as the JSON column gives it back

    assert parse_from_stored(raw, stored) == parsed


def test_a_parse_stored_by_other_parser_code_is_not_read() -> None:
    stored = stored_parse(parse_reference("Doe, A. A title of some length. 2020."))

    assert parse_from_stored("Doe, A. A title of some length. 2020.", stored) is not None
    assert parse_from_stored("Doe, A. Another title. 2021.", stored) is None  # another text
    assert parse_from_stored("x", {**stored, "v": "other"}) is None
    assert parse_from_stored("x", {"v": PARSE_VERSION, "kind": "journal"}) is None  # damaged
    assert parse_from_stored("x", None) is None
