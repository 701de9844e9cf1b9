"""Safe XML parsing shared by the TEI and JATS readers."""

from __future__ import annotations

import re

from lxml import etree

from curation.references.formats.base import ReferenceInputError

# No DTDs, no entity expansion, no network: reference files are untrusted input.
_PARSER = etree.XMLParser(
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
    huge_tree=False,
    remove_comments=True,
    recover=False,
)


def parse_xml(text: str, what: str) -> etree._Element:
    """Return the document root, or raise ReferenceInputError naming the line."""
    # Bytes, not str: lxml refuses str input that carries an encoding declaration.
    data = text.replace("\x00", "").encode("utf-8")
    try:
        return etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as exc:
        refused = _entity_refusal(text, exc.msg)
        if refused:
            raise ReferenceInputError(f"{what}: {refused}") from None
        line = exc.lineno or "?"
        raise ReferenceInputError(f"{what}: line {line}: not well-formed XML ({exc.msg})") from None


_ENTITY_DECLARATION = re.compile(r"<!ENTITY\s+(?:%\s+)?([^\s>]+)")
_ENTITY_REFERENCE = re.compile(r"&([A-Za-z_][\w.-]*);")


def _entity_refusal(text: str, message: str) -> str | None:
    """Say where an entity expansion libxml2 stopped (a "billion laughs", a loop) starts.

    libxml2 gives the line and column inside the entity's replacement text ("line 1, column
    7"), which names no place in the file; the place is the document's first reference to a
    declared entity, and the declarations before it.
    """
    if "entity" not in message.lower():
        return None
    declared = {m.group(1): m.start() for m in _ENTITY_DECLARATION.finditer(text)}
    if not declared:
        return None
    subset_end = max(text.find("]>", max(declared.values())), 0)
    reference = next(
        (m for m in _ENTITY_REFERENCE.finditer(text, subset_end) if m.group(1) in declared), None
    )
    if "amplification" in message:
        why = "it expands past the parser's limit (a 'billion laughs')"
    elif "loop" in message:
        why = "it refers to itself (an entity loop)"
    else:
        why = message.split(", line ")[0]
    where = "an entity"
    if reference is not None:
        where = f"line {_line_of(text, reference.start())}: entity &{reference.group(1)};"
    return (
        f"{where} refused: {why}; the entities are declared "
        f"from line {_line_of(text, min(declared.values()))}"
    )


def _line_of(text: str, offset: int) -> str:
    return str(text.count("\n", 0, offset) + 1)


def text_of(element: etree._Element | None) -> str:
    """Return the element's text content with whitespace collapsed."""
    if element is None:
        return ""
    return " ".join("".join(element.itertext()).split())


def first_present(*elements: etree._Element | None) -> etree._Element | None:
    """Return the first element that exists (elements without children are falsy in lxml)."""
    return next((e for e in elements if e is not None), None)


def local(tag: object) -> str:
    """Return an element tag without its namespace."""
    return etree.QName(tag).localname if isinstance(tag, str) else ""
