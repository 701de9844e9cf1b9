"""Find the DOI and arXiv id a bibliography entry states, as a reader of the entry would
(a .bib entry's fields, a .bbl item's LaTeX), whether or not its printed text shows them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from curation.references.identifiers import (
    canonical_doi,
    extract_identifiers,
    new_style_problem,
    parse_arxiv,
)

_UNESCAPE = re.compile(r"\\([_%#&])")
_MACRO = re.compile(r"\\(?=[A-Za-z@])")
_EPRINT_MACRO = re.compile(r"\\eprint\s*(?:\[[^\]]*\]\s*)?\{([^{}]+)\}")
_BARE_NEW_ID = re.compile(r"(?<![\w./])(\d{4})\.(\d{4,5})(?:v\d+)?(?![\w.]*\d)")


def plain(latex: str) -> str:
    """Return LaTeX with escapes undone and markup turned into spaces, for identifier search."""
    text = _UNESCAPE.sub(r"\1", latex).replace("%2F", "/").replace("%2f", "/")
    text = _MACRO.sub(" \\\\", text)  # "…/abc\newblock": the macro is not part of the DOI
    return text.translate(str.maketrans("{}~", "   "))


def names_arxiv(text: str) -> bool:
    """Return whether the entry's text mentions arXiv (the context an arXiv id needs)."""
    return "arxiv" in text.lower()


def entry_doi(text: str, doi_field: str | None = None) -> str | None:
    """Return the entry's DOI: its doi field when valid, else the first DOI in its text."""
    if doi_field and (doi := canonical_doi(plain(doi_field).strip())):
        return doi
    found = extract_identifiers(text).dois
    return found[0].value if found else None


def entry_arxiv_id(text: str, eprints: Iterable[str] = ()) -> str | None:
    """Return the entry's arXiv id (no version, no subject class), only with an arXiv context:
    an eprint value, an arXiv-marked id or arXiv DOI in the text, or a bare id beside "arXiv"."""
    if not names_arxiv(text):
        return None
    for value in [*eprints, *_EPRINT_MACRO.findall(text)]:
        if found := parse_arxiv(plain(value).strip()):
            return found.id
    ids = extract_identifiers(text).arxiv
    if ids:
        return ids[0].id
    for m in _BARE_NEW_ID.finditer(text):
        if new_style_problem(m[1], m[2]) is None:
            return f"{m[1]}.{m[2]}"
    return None


def field_ids(fields: Mapping[str, str]) -> tuple[str | None, str | None]:
    """Return the DOI and arXiv id an XML reader's fields state (doi, arxiv), when valid."""
    doi = canonical_doi(fields.get("doi") or None)
    found = parse_arxiv(fields["arxiv"]) if fields.get("arxiv") else None
    return doi, found.id if found else None
