"""JATS XML reference lists: ref-list/ref with mixed-citation or element-citation."""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from curation.references.formats.base import make_reference
from curation.references.formats.compose import compose_raw
from curation.references.formats.stated_ids import field_ids
from curation.references.formats.xml import first_present, local, parse_xml, text_of
from curation.references.listed import ListedReference

_CITATIONS = ("mixed-citation", "element-citation", "citation", "nlm-citation")


def _first(el: etree._Element, name: str) -> etree._Element | None:
    return next((e for e in el.iter() if local(e.tag) == name), None)


def _fields(citation: etree._Element) -> dict[str, str]:
    surnames = [text_of(e) for e in citation.iter() if local(e.tag) == "surname"]
    fields = {
        "title": text_of(
            first_present(_first(citation, "article-title"), _first(citation, "chapter-title"))
        ),
        "author": " and ".join(surnames),
        "year": text_of(_first(citation, "year"))[:4],
        "venue": text_of(_first(citation, "source")),
        "volume": text_of(_first(citation, "volume")),
    }
    fpage, lpage = text_of(_first(citation, "fpage")), text_of(_first(citation, "lpage"))
    if fpage:
        fields["pages"] = f"{fpage}–{lpage}" if lpage else fpage
    if not fields["title"] and fields["venue"]:
        fields["title"], fields["venue"] = fields["venue"], ""  # a book: its title is the source
    for pub_id in (e for e in citation.iter() if local(e.tag) == "pub-id"):
        kind = (pub_id.get("pub-id-type") or "").lower()
        if kind in ("doi", "arxiv"):
            fields[kind] = text_of(pub_id)
    link = first_present(_first(citation, "ext-link"), _first(citation, "uri"))
    if link is not None:
        fields["url"] = link.get("{http://www.w3.org/1999/xlink}href") or text_of(link)
    return {k: v for k, v in fields.items() if v}


def read_jats(text: str) -> Iterator[ListedReference]:
    """Yield one reference per ref in every ref-list, keeping the printed label."""
    root = parse_xml(text, "JATS")
    refs = [
        e
        for e in root.iter()
        if local(e.tag) == "ref"
        and e.getparent() is not None
        and local(e.getparent().tag) == "ref-list"
    ]
    for index, ref in enumerate(refs, 1):
        label_el = next((c for c in ref if local(c.tag) == "label"), None)
        citation = next((c for c in ref.iter() if local(c.tag) in _CITATIONS), None)
        fields = _fields(citation) if citation is not None else {}
        if citation is not None and local(citation.tag) == "mixed-citation":
            raw = text_of(citation)
        else:
            raw = compose_raw(fields)
        label = text_of(label_el).strip("[]. ") or ref.get("id")
        doi, arxiv_id = field_ids(fields)
        yield make_reference(
            index, raw, label=label, key=ref.get("id"), line=ref.sourceline, fields=fields,
            doi=doi, arxiv_id=arxiv_id, url=fields.get("url"),
        )  # fmt: skip
