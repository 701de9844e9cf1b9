"""Crossref {"items"} documents decoded into only the fields the catalogue keeps (msgspec).

A work in Crossref's public data file is mostly what the catalogue does not keep (reference
lists, affiliations, licences, funders): decoding it whole into dicts cost the import about
13 µs of CPU per generated work, decoding the kept fields into structs and skipping the rest
(still checked as JSON) about 5, and real works hold far more to skip. The structs answer
`get(json_name)` as a dict does, so catalogue_rows.crossref_fields reads them unchanged.

This is a shortcut for the plain, valid shape only: a document with anything else (a "message"
wrapper, an item or author that is not an object, JSON that msgspec refuses) gives None, and the
caller parses it as before (orjson, else the bounded parser), so what is stored, skipped and
reported stays the same. msgspec refuses what orjson refuses and more (lone surrogates, raw
control characters in strings, NaN), so a decoded work holds no string PostgreSQL cannot store.
"""

from __future__ import annotations

from typing import Any

import msgspec

# JSON name -> attribute, for the fields catalogue_rows.crossref_fields and versions read.
_ATTRS = {
    "DOI": "doi", "title": "title", "author": "author", "container-title": "container_title",
    "short-container-title": "short_container_title", "issued": "issued",
    "published-print": "published_print", "published-online": "published_online",
    "published": "published", "created": "created", "type": "type", "updated-by": "updated_by",
    "update-to": "update_to", "relation": "relation", "page": "page",
    "article-number": "article_number", "volume": "volume", "issue": "issue",
}  # fmt: skip


class CrossrefAuthor(msgspec.Struct, gc=False):
    """The names of one author (given names, affiliations and ORCID are skipped)."""

    family: Any = None
    name: Any = None

    def get(self, key: str, default: Any = None) -> Any:
        """Return a field as dict.get does (only family and name are kept)."""
        return getattr(self, key, default)


class CrossrefItem(
    msgspec.Struct, gc=False, rename={attr: name for name, attr in _ATTRS.items()}
):  # fmt: skip
    """The fields of one work the catalogue keeps; absent and null are both None, as .get."""

    doi: Any = None
    title: Any = None
    author: list[CrossrefAuthor] | None = None
    container_title: Any = None
    short_container_title: Any = None
    issued: Any = None
    published_print: Any = None
    published_online: Any = None
    published: Any = None
    created: Any = None
    type: Any = None
    updated_by: Any = None
    update_to: Any = None
    relation: Any = None
    page: Any = None
    article_number: Any = None
    volume: Any = None
    issue: Any = None

    def get(self, key: str, default: Any = None) -> Any:
        """Return a field by its JSON name, as dict.get does on the whole work."""
        attr = _ATTRS.get(key)
        return default if attr is None else getattr(self, attr)


class _Document(msgspec.Struct, gc=False):
    items: list[CrossrefItem] | None = None
    message: msgspec.Raw = msgspec.Raw()  # kept undecoded: only its presence matters


_DECODER = msgspec.json.Decoder(_Document)


def decode_items(data: bytes) -> list[CrossrefItem] | None:
    """Return the works of a plain {"items": [...]} document, or None for any other document.

    `data` has its escaped NULs dropped already (limits.drop_escaped_nul), as for every parser.
    """
    try:
        document = _DECODER.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return None
    if document.items is None or len(document.message):
        return None
    return document.items
