"""One reference of a reference list, as every reader returns it (text, BibTeX, .bbl, TEI,
JATS, the LaTeX source, GROBID), and what of it is kept with its observation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ListedReference:
    """One reference as its source lists it, in source order (index is 1-based).

    `raw` is its text as a reader sees it (printed, or composed from the fields when the source
    holds fields only); `key` its cite key where the source has one (.bib, .bbl, LaTeX source);
    `label` what names it in its list (the cite key, else the printed label: "12", "[Smi04]");
    `fields` what the source states (title, author, year, venue, volume, pages, doi, ...);
    `doi` / `arxiv_id` the identifiers the source states, canonical (a .bib's doi or eprint
    field, a .bbl's \\doi or \\eprint, TEI idno, JATS pub-id), also when its text prints
    neither; `problems` what went wrong with this reference alone.
    """

    index: int
    raw: str
    label: str | None = None
    line: int | None = None
    fields: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    key: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    url: str | None = None

    def stored(self) -> dict[str, Any]:
        """Return what the source said beyond the text, as kept with the observation (JSON)."""
        out: dict[str, Any] = {
            "key": self.key,
            "label": self.label,
            "line": self.line,
            "fields": dict(self.fields),
            "doi": self.doi,
            "arxiv_id": self.arxiv_id,
            "url": self.url,
            "problems": list(self.problems),
        }
        return {k: v for k, v in out.items() if v not in (None, {}, [])}
