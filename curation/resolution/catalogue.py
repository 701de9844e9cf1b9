"""Candidate retrieval from the local catalogues (arXiv papers, Crossref works)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import connection

from curation.resolution.text import title_key, title_norm, tsquery
from curation.states import ResolverSource

CANDIDATE_LIMIT = 40
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")


@dataclass(frozen=True)
class Candidate:
    """One catalogue record a reference might describe."""

    source: ResolverSource
    title: str
    title_norm: str
    title_key: str
    years: tuple[int, ...]
    first_author: str
    authors: str
    arxiv_id: str | None = None
    doi: str | None = None
    venue: str = ""
    paper_id: int | None = None

    @property
    def work_key(self) -> str:
        """Return what identifies the work itself (an arXiv paper and its DOI are one work)."""
        return f"arxiv:{self.arxiv_id}" if self.arxiv_id else f"doi:{self.doi}"

    def describe(self) -> dict[str, Any]:
        """Return the candidate as evidence."""
        return {
            "source": self.source.value,
            "arxiv_id": self.arxiv_id,
            "doi": self.doi,
            "title": self.title,
            "years": list(self.years),
            "first_author": self.first_author,
        }


_PAPER_COLUMNS = (
    "id, arxiv_id, title, title_norm, title_key, year, last_updated, journal_ref, "
    "first_author, authors, doi, in_catalogue"
)
_CROSSREF_COLUMNS = (
    "doi, title, title_norm, title_key, year, first_author, authors, container_title"
)


def _paper(row: tuple[Any, ...]) -> Candidate:
    pk, arxiv_id, title, norm, key, year, updated, journal_ref, first, authors, doi, in_cat = row
    years = {y for y in (year, updated.year if updated else None) if y}
    years.update(int(y) for y in _YEAR.findall(journal_ref or ""))
    return Candidate(
        source=ResolverSource.LOCAL_ARXIV if in_cat else ResolverSource.PITH,
        title=title,
        title_norm=norm or title_norm(title),
        title_key=key or title_key(title),
        years=tuple(sorted(years)),
        first_author=first,
        authors=authors,
        arxiv_id=arxiv_id,
        doi=doi.lower() or None,
        venue=journal_ref or "",
        paper_id=pk,
    )


def _crossref(row: tuple[Any, ...]) -> Candidate:
    doi, title, norm, key, year, first, authors, container = row
    return Candidate(
        source=ResolverSource.DOI,
        title=title,
        title_norm=norm,
        title_key=key,
        years=(year,) if year else (),
        first_author=first,
        authors=authors,
        doi=doi,
        venue=container,
    )


def _select(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def papers_by_arxiv_id(ids: Iterable[str]) -> dict[str, Candidate]:
    """Return the known arXiv papers among ids, by id."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    rows = _select(
        f"SELECT {_PAPER_COLUMNS} FROM curation_paper WHERE arxiv_id = ANY(%s)", [wanted]
    )
    return {row[1]: _paper(row) for row in rows}


def works_by_doi(dois: Iterable[str]) -> dict[str, Candidate]:
    """Return DOI records among dois, by DOI: Crossref works, else arXiv papers with that DOI."""
    wanted = sorted({d.lower() for d in dois})
    if not wanted:
        return {}
    found: dict[str, Candidate] = {}
    for row in _select(
        f"SELECT {_CROSSREF_COLUMNS} FROM resolution_crossrefwork WHERE doi = ANY(%s)", [wanted]
    ):
        found[row[0]] = _crossref(row)
    missing = [d for d in wanted if d not in found]
    if missing:
        for row in _select(
            f"SELECT {_PAPER_COLUMNS} FROM curation_paper WHERE doi = ANY(%s)", [missing]
        ):
            found.setdefault(row[10].lower(), _paper(row))
    return found


def arxiv_papers_with_dois(dois: Iterable[str]) -> dict[str, Candidate]:
    """Return the arXiv papers whose published DOI is among dois, by DOI."""
    wanted = sorted({d.lower() for d in dois})
    if not wanted:
        return {}
    rows = _select(f"SELECT {_PAPER_COLUMNS} FROM curation_paper WHERE doi = ANY(%s)", [wanted])
    return {row[10].lower(): _paper(row) for row in rows}


_FTS = "to_tsvector('simple'::regconfig, COALESCE({col}, '')) @@ to_tsquery('simple', %s)"


def word_frequencies(words: Iterable[str]) -> dict[str, int]:
    """Return how many catalogue titles hold each of the words (refreshed after imports)."""
    wanted = sorted(set(words))
    if not wanted:
        return {}
    rows = _select("SELECT word, titles FROM resolution_titleword WHERE word = ANY(%s)", [wanted])
    return {word: count for word, count in rows}


def title_candidates(title: str, frequencies: Mapping[str, int] | None = None) -> list[Candidate]:
    """Return catalogue records whose title shares most rare words with title, or equals it."""
    norm, key = title_norm(title), title_key(title)
    query = tsquery(norm, frequencies)
    where = "title_key = %s" + (f" OR {_FTS.format(col='title_norm')}" if query else "")
    params: list[Any] = [key] + ([query] if query else [])
    order = " ORDER BY (title_key = %s) DESC, abs(length(title_norm) - %s) LIMIT %s"
    tail = [key, len(norm), CANDIDATE_LIMIT]
    found = [
        _paper(row)
        for row in _select(
            f"SELECT {_PAPER_COLUMNS} FROM curation_paper WHERE {where}{order}", params + tail
        )
    ]
    found += [
        _crossref(row)
        for row in _select(
            f"SELECT {_CROSSREF_COLUMNS} FROM resolution_crossrefwork WHERE {where}{order}",
            params + tail,
        )
    ]
    return found
