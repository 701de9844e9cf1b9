"""GROBID TEI XML: listBibl/biblStruct."""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from curation.references.formats.base import make_reference
from curation.references.formats.compose import compose_raw
from curation.references.formats.stated_ids import field_ids
from curation.references.formats.xml import first_present, parse_xml, text_of
from curation.references.listed import ListedReference

NS = {"tei": "http://www.tei-c.org/ns/1.0"}
_XML_ID = "{http://www.w3.org/XML/1998/namespace}id"


def _find(el: etree._Element, path: str) -> etree._Element | None:
    found = el.find(path, NS)
    if found is None and "tei:" in path:
        found = el.find(path.replace("tei:", ""))  # TEI without its namespace
    return found


def _findall(el: etree._Element, path: str) -> list[etree._Element]:
    return el.findall(path, NS) or el.findall(path.replace("tei:", ""))


def _fields(bs: etree._Element) -> dict[str, str]:
    analytic = _find(bs, "tei:analytic")
    monogr = _find(bs, "tei:monogr")
    title_el = first_present(
        _find(analytic, "tei:title") if analytic is not None else None,
        _find(monogr, "tei:title") if monogr is not None else None,
    )
    surnames = [text_of(s) for s in _findall(bs, ".//tei:author/tei:persName/tei:surname")]
    date = _find(bs, ".//tei:imprint/tei:date")
    year = (date.get("when") or text_of(date))[:4] if date is not None else ""
    fields = {
        "title": text_of(title_el),
        "author": " and ".join(s for s in surnames if s),
        "year": year if year.isdigit() else "",
    }
    if analytic is not None and monogr is not None:
        fields["venue"] = text_of(_find(monogr, "tei:title"))
    for idno in _findall(bs, ".//tei:idno"):
        kind = (idno.get("type") or "").lower()
        if kind in ("doi", "arxiv"):
            value = text_of(idno)
            fields[kind] = value[6:] if value.lower().startswith("arxiv:") else value
    for scope in _findall(bs, ".//tei:biblScope"):
        unit = scope.get("unit")
        if unit == "volume":
            fields["volume"] = text_of(scope)
        elif unit == "page" and scope.get("from"):
            fields["pages"] = f"{scope.get('from')}–{scope.get('to') or ''}".rstrip("–")
    ptr = _find(bs, ".//tei:ptr")
    if ptr is not None and ptr.get("target"):
        fields["url"] = ptr.get("target", "")
    return {k: v for k, v in fields.items() if v}


def read_tei(text: str) -> Iterator[ListedReference]:
    """Yield one reference per biblStruct inside listBibl, preferring GROBID's raw string."""
    root = parse_xml(text, "TEI")
    structs = root.findall(".//tei:listBibl/tei:biblStruct", NS) or root.findall(
        ".//listBibl/biblStruct"
    )
    for index, bs in enumerate(structs, 1):
        fields = _fields(bs)
        raw_note = next(
            (n for n in _findall(bs, "tei:note") if n.get("type") == "raw_reference"), None
        )
        raw = text_of(raw_note) if raw_note is not None else compose_raw(fields)
        doi, arxiv_id = field_ids(fields)
        yield make_reference(
            index, raw, label=bs.get(_XML_ID), key=bs.get(_XML_ID), line=bs.sourceline,
            fields=fields, doi=doi, arxiv_id=arxiv_id, url=fields.get("url"),
        )  # fmt: skip
