"""Safe XML parsing shared by the TEI and JATS readers."""

from __future__ import annotations

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
        line = exc.lineno or "?"
        raise ReferenceInputError(f"{what}: line {line}: not well-formed XML ({exc.msg})") from None


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
