"""The group key of a reference: identifier, else title + year + first author, else text."""

from __future__ import annotations

import pytest

from curation.references import normalize_reference_text, parse_reference
from curation.references.groups import reference_group_key


def key(raw: str) -> tuple[str, str]:
    found = reference_group_key(parse_reference(raw), normalize_reference_text(raw))
    return found.key, found.kind


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # Every version of an arXiv paper, and its arXiv DOI, are one work.
        ("A. Ng. Checkpointing. arXiv:2303.00004v2, 2023.", ("arxiv:2303.00004", "identifier")),
        ("A. Ng. Checkpointing. arXiv:2303.00004, 2023.", ("arxiv:2303.00004", "identifier")),
        ("Ng A. doi:10.48550/arXiv.2303.00004", ("arxiv:2303.00004", "identifier")),
        # DOIs are case-blind.
        ("K. Lee. Gradients. J. X 3, 2020. doi:10.1016/J.X.2020.1", ("doi:10.1016/j.x.2020.1", "identifier")),
        ("K. Lee. Gradients. J. X 3, 2020. https://doi.org/10.1016/j.x.2020.1", ("doi:10.1016/j.x.2020.1", "identifier")),
        # Other styles of the same title, year and first author.
        ("J. Smith. Silent data corruption in large training runs. 2023.",
         ("title:2023:smith:silentdatacorruptioninlargetrainingruns", "title")),
        ("Smith, J. (2023). Silent Data Corruption in Large Training Runs. In Proc. SC.",
         ("title:2023:smith:silentdatacorruptioninlargetrainingruns", "title")),
        # No usable title or no year: the text itself.
        ("write newline", ("text:write newline", "text")),
    ],
)  # fmt: skip
def test_group_key_precedence(raw: str, expected: tuple[str, str]) -> None:
    assert key(raw) == expected


def test_a_long_text_key_is_a_digest_that_fits_the_index() -> None:
    raw = "x " * 2000
    found, kind = key(raw)
    assert kind == "text" and found.startswith("text:sha1:") and len(found) < 255
    assert key(raw)[0] == found
