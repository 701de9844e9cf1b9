"""The group a reference belongs to: references that cite the same thing, across papers.

One key per reference, with a precedence, so that a reference is in exactly one group (a side
table of several memberships per reference would let one decision reach a reference twice,
from two groups, with two different answers):

1. an identifier it prints: its arXiv id without the version (every version of a paper is the
   same work: "the version set"), else its first DOI (lower case: DOIs are case-blind). An
   arXiv DOI (10.48550/arXiv.X) is the arXiv id, so both spellings meet;
2. else its parsed title, year and first author's surname, when all three were read and the
   title is usable: the same work printed in different styles;
3. else its normalised text (SPEC §6's identity text): the same string in other papers.

Pure text, no Django: computed when a reference list is imported, from the parse it already has.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .identifiers import arxiv_id_from_doi, doi_key
from .normalize import compact_title, normalize_title
from .parse import ParsedReference

# A key is stored in a unique B-tree index: long parts are digested to keep it short.
_KEY_PART_CHARS = 160
KIND_IDENTIFIER, KIND_TITLE, KIND_TEXT = "identifier", "title", "text"


@dataclass(frozen=True, slots=True)
class GroupKey:
    """A reference's group: its key (unique) and which rule made it."""

    key: str
    kind: str


def _short(text: str) -> str:
    """Return the text itself when short, else a digest of it (same text, same key)."""
    if len(text) <= _KEY_PART_CHARS:
        return text
    return "sha1:" + hashlib.sha1(text.encode("utf-8")).hexdigest()


def reference_group_key(parsed: ParsedReference, normalized: str) -> GroupKey:
    """Return the group of a parsed reference whose normalised text is `normalized`."""
    ids = parsed.identifiers
    if ids.arxiv:
        return GroupKey(f"arxiv:{ids.arxiv[0].id}", KIND_IDENTIFIER)
    if ids.dois:
        doi = doi_key(ids.dois[0].value)
        arxiv = arxiv_id_from_doi(doi)
        key = f"arxiv:{arxiv}" if arxiv else f"doi:{_short(doi)}"
        return GroupKey(key, KIND_IDENTIFIER)
    surname = normalize_title(parsed.first_author_surname or "").replace(" ", "")
    title = compact_title(parsed.title or "") if parsed.title_usable else ""
    if title and parsed.year and surname:
        return GroupKey(f"title:{parsed.year}:{surname[:40]}:{_short(title)}", KIND_TITLE)
    return GroupKey(f"text:{_short(normalized)}", KIND_TEXT)
