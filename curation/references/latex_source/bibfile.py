"""Read a BibTeX database the way BibTeX does: entries, @string macros, # concatenation."""

from __future__ import annotations

import re
from dataclasses import dataclass

from curation.references.formats.bibtex_macros import Macros, close_body, read_fields

_AT = re.compile(r"@\s*([A-Za-z]+)\s*([{(])")
# Lines commented out with "%" inside an entry: BibTeX would choke on them; authors mean them
# as removed, so they are dropped before the fields are read.
_COMMENTED_LINE = re.compile(r"^[ \t]*%[^\n]*\n?", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class BibEntry:
    """One database entry: its fields' LaTeX values by lower-cased name (macros expanded)."""

    key: str
    entry_type: str
    fields: dict[str, str]


def read_database(text: str, warnings: list[str] | None = None) -> list[BibEntry]:
    """Return the entries of a .bib file in file order (a repeated key appears again); what
    was cut or left unexpanded is said in `warnings`."""
    macros = Macros(len(text))
    entries: list[BibEntry] = []
    pos = 0
    while (m := _AT.search(text, pos)) is not None:
        kind = m[1].lower()
        end = close_body(text, m.end() - 1, m[2])
        pos = end
        if kind in ("comment", "preamble"):
            continue
        body = _COMMENTED_LINE.sub("", text[m.end() : end - 1])
        if kind == "string":
            macros.define(body)
            continue
        comma = body.find(",")
        key = (body if comma < 0 else body[:comma]).strip()
        if not key or any(c in key for c in ' \t\n{}"='):
            continue  # not an entry BibTeX could cite
        fields = read_fields(body, comma + 1, macros, key) if comma >= 0 else {}
        entries.append(BibEntry(key, kind, fields))
    if warnings is not None:
        warnings.extend(macros.warnings[:10])
    return entries

