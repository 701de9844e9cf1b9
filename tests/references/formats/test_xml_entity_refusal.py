"""A reference file whose entities expand without end is refused where the expansion starts.

libxml2 stops a "billion laughs" or an entity loop, but names a line and column inside the
entity's replacement text ("line 1, column 7"), which is no place in the file.
"""

from __future__ import annotations

import pytest

from curation.references.formats import read_references
from curation.references.formats.base import ReferenceInputError

LAUGHS = "\n".join(
    [
        '<?xml version="1.0"?>',
        "<!DOCTYPE lolz [",
        ' <!ENTITY lol "lol">',
        ' <!ENTITY lol2 "' + "&lol;" * 10 + '">',
        *(f' <!ENTITY lol{n} "' + f"&lol{n - 1};" * 10 + '">' for n in range(3, 10)),
        "]>",
        '<TEI xmlns="http://www.tei-c.org/ns/1.0"><listBibl><biblStruct><monogr>',
        "<title>&lol9;</title></monogr></biblStruct></listBibl></TEI>",
    ]
)
LOOP = (
    '<!DOCTYPE x [<!ENTITY a "&b;">\n<!ENTITY b "&a;">]>\n'
    '<TEI xmlns="http://www.tei-c.org/ns/1.0"><listBibl><biblStruct><monogr>\n'
    "<title>&a;</title></monogr></biblStruct></listBibl></TEI>"
)


def refusal(xml: str) -> str:
    with pytest.raises(ReferenceInputError) as refused:
        list(read_references(xml, "tei"))
    return str(refused.value)


def test_a_billion_laughs_is_refused_at_the_reference_that_expands_it() -> None:
    assert refusal(LAUGHS) == (
        "<input>: TEI: line 14: entity &lol9; refused: it expands past the parser's limit "
        "(a 'billion laughs'); the entities are declared from line 3"
    )


def test_an_entity_loop_is_refused_at_the_reference_that_enters_it() -> None:
    assert refusal(LOOP) == (
        "<input>: TEI: line 4: entity &a; refused: it refers to itself (an entity loop); "
        "the entities are declared from line 1"
    )
