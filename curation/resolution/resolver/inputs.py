"""What one reference says, from its raw text's parse or from an imported cited_work: the
resolver's input, and the fields the scorer compares."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from curation.catalogue.text import clean_title, fold_name, title_key, title_norm
from curation.references import Malformed, ParsedReference, extract_identifiers
from curation.references.identifiers import doi_key
from curation.references.quality import title_problem
from curation.resolution.conflicts import CitedFields
from curation.resolution.scoring import Query


@dataclass
class ReferenceInput:
    """What one reference says, from raw text or from an imported cited_work."""

    title: str | None
    year: int | None = None
    first_author: str = ""
    venue: str = ""
    arxiv_ids: list[str] = field(default_factory=list)
    dois: list[str] = field(default_factory=list)
    pith_arxiv_id: str | None = None
    malformed: list[dict[str, str]] = field(default_factory=list)
    url: str | None = None
    problem: str | None = None  # why the title is unusable (SPEC §2 step 1), None when usable
    repairs: list[dict[str, str]] = field(default_factory=list)
    origin: str = "raw_reference"
    raw: str | None = None  # the whole reference string, matched against each candidate
    names_given: bool = False  # the string names people (so authors can contradict)
    parsed: ParsedReference | None = field(default=None, repr=False, compare=False)  # its parse

    @cached_property
    def cited(self) -> CitedFields | None:
        """The parse's volume, first page and authors (conflicts.py), read when a decision by
        the string needs them: an identifier decides most references without them."""
        parsed = self.parsed
        if parsed is None:
            return None
        return CitedFields.of(
            parsed.volume,
            parsed.first_page,
            [(a.name, a.surname) for a in parsed.authors],
            journal=parsed.journal,
            container=parsed.container,
            title=parsed.title if parsed.title_usable else None,
            issue=parsed.issue,
        )

    @classmethod
    def from_parse(
        cls, parsed: ParsedReference, *, stated_doi: str | None = None,
        stated_arxiv_id: str | None = None,
    ) -> ReferenceInput:  # fmt: skip
        """Return the input of a parsed raw reference, with the DOI and arXiv id its source
        states beside its text (a .bib's doi or eprint field, a .bbl's \\doi or \\href): an
        identifier as the printed ones are, after them, whether or not the text prints it."""
        ids = parsed.identifiers
        arxiv_ids = [a.id for a in ids.arxiv]
        dois = [d.value for d in ids.dois]
        if stated_arxiv_id and stated_arxiv_id not in arxiv_ids:
            arxiv_ids.append(stated_arxiv_id)
        if stated_doi and doi_key(stated_doi) not in {doi_key(d) for d in dois}:
            dois.append(doi_key(stated_doi))
        return cls(
            title=parsed.title if parsed.title_usable else None,
            year=parsed.year,
            first_author=fold_name(parsed.first_author_surname or ""),
            venue=parsed.venue or "",
            arxiv_ids=arxiv_ids,
            dois=dois,
            malformed=[_malformed(m) for m in ids.malformed],
            url=parsed.url,
            problem=None if parsed.title_usable else (parsed.title_problem or "no_title"),
            repairs=[r.to_dict() for r in parsed.repairs],
            raw=parsed.raw,
            names_given=bool(parsed.authors),
            parsed=parsed,
        )

    @classmethod
    def from_cited_work(
        cls,
        *,
        title: str | None,
        year: int | None,
        venue: str | None,
        doi: str | None,
        arxiv_id: str | None,
        pith_arxiv_id: str | None,
    ) -> ReferenceInput:
        """Return the input of an imported observation, read from its cited_work fields."""
        text = (title or "").strip()
        found = extract_identifiers(text) if text else None
        url = found.urls[0] if found and found.urls else None
        if url:
            # "URL https://..." titles: the URL is the reference, not a title.
            text = text.replace(url, " ")
            for leftover in ("URL", "Url", "url", "Available at", "Online"):
                text = text.replace(leftover, " ")
            text = " ".join(text.split())
        text = clean_title(text) if text else ""
        problem = title_problem(text or None)
        return cls(
            title=text if problem is None else None,
            year=year,
            venue=venue or "",
            arxiv_ids=[arxiv_id] if arxiv_id else [],
            dois=[doi_key(doi)] if doi else [],
            pith_arxiv_id=pith_arxiv_id,
            url=url,
            problem=problem,
            origin="cited_work",
        )

    def query(self) -> Query:
        """Return the fields the scorer compares (computed once: every step reads them)."""
        cached = self.__dict__.get("_query")
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        title = clean_title(self.title) if self.title else None
        query = Query(
            title=title,
            title_norm=title_norm(title) if title else "",
            title_key=title_key(title) if title else "",
            year=self.year,
            first_author=self.first_author,
            venue=self.venue,
        )
        self.__dict__["_query"] = query
        return query

    def describe(self) -> dict[str, Any]:
        """Return the input as evidence."""
        return {
            "from": self.origin,
            "title": self.title,
            "title_problem": self.problem,
            "year": self.year,
            "first_author": self.first_author or None,
            "venue": self.venue or None,
            "url": self.url,
        }


def _malformed(m: Malformed) -> dict[str, str]:
    return {"scheme": m.scheme, "raw": m.raw, "reason": m.reason}
