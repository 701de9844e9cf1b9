"""Candidate retrieval from the local catalogues (arXiv papers, Crossref works).

Every search of a batch of references is one statement per catalogue and pass: title searches
go through a LATERAL join over the batch's queries (the exact keys first, then full text only
where a key did not settle it), locator searches through a LATERAL join over each reference's
(volume, first page) pairs, ranked there by the journal and first author the string names. Full-text search uses the plain GIN index (no pg_trgm: the embedded PostgreSQL has
no extensions).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from curation.catalogue import selectivity
from curation.catalogue.text import QUERY_SEPARATOR, title_key, title_norm
from curation.references.identifiers import doi_key
from curation.server_cursors import server_bound_cursor
from curation.states import ResolverSource

CANDIDATE_LIMIT = 40
LOCATOR_PER_PAIR = 8  # records read per (volume, first page) pair of a reference (_BY_LOCATOR)
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_NO_MATCH = "zzqxnomatchqxzz"  # a tsquery word no title holds, for a query with no usable word


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
    venue_keys: tuple[str, ...] = ()
    volume: str = ""
    first_page: str = ""
    issue: str = ""

    @property
    def work_key(self) -> str:
        """Return what identifies the work itself (an arXiv paper and its DOI are one work)."""
        return f"arxiv:{self.arxiv_id}" if self.arxiv_id else f"doi:{self.doi}"

    def describe(self) -> dict[str, Any]:
        """Return the candidate as evidence."""
        found: dict[str, Any] = {
            "source": self.source.value,
            "arxiv_id": self.arxiv_id,
            "doi": self.doi,
            "title": self.title,
            "years": list(self.years),
            "first_author": self.first_author,
        }
        if self.volume or self.first_page:
            found["locator"] = {"venue_keys": list(self.venue_keys), "volume": self.volume,
                                "first_page": self.first_page}  # fmt: skip
        return found


# The year of the last update only (all a candidate uses of it): an int, not a timestamp that
# the driver would parse in Python for every candidate row.
_PAPER_BASE = (
    "p.id, p.arxiv_id, p.title, p.title_norm, p.title_key, p.year, "
    "extract(year FROM p.last_updated)::int AS updated_year, "
    "p.journal_ref, p.first_author, p.authors, p.doi, p.in_catalogue"
)
_LOCATOR_COLUMNS = "l.venue_key, l.volume, l.first_page"
_PAPER_COLUMNS = f"{_PAPER_BASE}, {_LOCATOR_COLUMNS}"
_PAPERS = "curation_paper p LEFT JOIN resolution_paperlocator l ON l.paper_id = p.id"
_CROSSREF_COLUMNS = (
    "c.doi, c.title, c.title_norm, c.title_key, c.year, c.first_author, c.authors, "
    "c.container_title, c.venue_key, c.short_venue_key, c.volume, c.first_page, c.issue"
)
_WORKS = "resolution_crossrefwork c"


def _paper(row: Sequence[Any]) -> Candidate:
    pk, arxiv_id, title, norm, key, year, updated, journal_ref, first, authors, doi, in_cat = row[
        :12
    ]
    venue_key, volume, first_page = row[12:15]
    years = {y for y in (year, updated) if y}
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
        doi=doi_key(doi) or None,
        venue=journal_ref or "",
        paper_id=pk,
        venue_keys=(venue_key,) if venue_key else (),
        volume=volume or "",
        first_page=first_page or "",
    )


def _crossref(row: Sequence[Any]) -> Candidate:
    doi, title, norm, key, year, first, authors, container, venue, short, volume, page, issue = row
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
        venue_keys=tuple(k for k in dict.fromkeys((venue, short)) if k),
        volume=volume,
        first_page=page,
        issue=issue,
    )


def crossref_candidate(fields: dict[str, Any]) -> Candidate:
    """Return the candidate a Crossref work's catalogue fields (catalogue_rows.crossref_fields)
    make, as if read back from the catalogue: a work the Crossref API just answered with."""
    return _crossref(
        [fields[name] for name in (
            "doi", "title", "title_norm", "title_key", "year", "first_author", "authors",
            "container_title", "venue_key", "short_venue_key", "volume", "first_page", "issue",
        )]
    )  # fmt: skip


# A list parameter goes to PostgreSQL as one JSON text, unpacked there (`UNPACKED`, or
# jsonb_to_recordset for rows), and the statements run on a server-bound cursor, so that each
# (one text whatever the batch) is prepared once per connection. Before, psycopg quoted every
# array element in Python into a new statement text a batch, which the server parsed and
# planned again (and, seeing a literal of a thousand words, planned a sequential scan). One
# batch's title words: 5.4 -> 1.8 ms; its version statements: 5.3 -> 1.7 ms
# (bench/README-resolution.md).
UNPACKED = "ARRAY(SELECT jsonb_array_elements_text(%s::jsonb))"


def json_list(values: Iterable[Any]) -> str:
    """Return values as the one JSON text a list parameter is sent as (see UNPACKED)."""
    return json.dumps(list(values), separators=(",", ":"))


def _select(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with server_bound_cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def papers_by_arxiv_id(ids: Iterable[str]) -> dict[str, Candidate]:
    """Return the known arXiv papers among ids, by id."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    rows = _select(
        f"SELECT {_PAPER_COLUMNS} FROM {_PAPERS} WHERE p.arxiv_id = ANY({UNPACKED})",
        [json_list(wanted)],
    )
    return {row[1]: _paper(row) for row in rows}


def works_by_doi(dois: Iterable[str]) -> dict[str, Candidate]:
    """Return DOI records among dois, by DOI: Crossref works, else arXiv papers with that DOI."""
    wanted = sorted({doi_key(d) for d in dois})
    if not wanted:
        return {}
    found: dict[str, Candidate] = {}
    for row in _select(
        f"SELECT {_CROSSREF_COLUMNS} FROM {_WORKS} WHERE c.doi = ANY({UNPACKED})",
        [json_list(wanted)],
    ):
        found[row[0]] = _crossref(row)
    missing = [d for d in wanted if d not in found]
    if missing:
        for row in _select(
            f"SELECT {_PAPER_COLUMNS} FROM {_PAPERS} WHERE p.doi = ANY({UNPACKED})",
            [json_list(missing)],
        ):
            found.setdefault(row[10].lower(), _paper(row))
    return found


def arxiv_papers_with_dois(dois: Iterable[str]) -> dict[str, Candidate]:
    """Return the arXiv papers whose published DOI is among dois, by DOI."""
    wanted = sorted({doi_key(d) for d in dois})
    if not wanted:
        return {}
    rows = _select(
        f"SELECT {_PAPER_COLUMNS} FROM {_PAPERS} WHERE p.doi = ANY({UNPACKED})", [json_list(wanted)]
    )
    return {row[10].lower(): _paper(row) for row in rows}


def word_frequencies(words: Iterable[str]) -> dict[str, int]:
    """Return how many catalogue titles hold each of the words (refreshed after imports)."""
    wanted = sorted(set(words))
    if not wanted:
        return {}
    rows = _select(
        f"SELECT word, titles FROM resolution_titleword WHERE word = ANY({UNPACKED})",
        [json_list(wanted)],
    )
    return {word: count for word, count in rows}


@dataclass(frozen=True)
class TitleSearch:
    """One title search: the exact key, the full-text queries, the length to prefer.

    query finds titles sharing most of the rarest words (a misspelled or cut title);
    near, run instead when the key found a record, finds the titles holding its two rarest
    words (text.near_tsquery): its siblings, the records that can still tie with or outrank
    the exact one.
    """

    key: str
    query: str | None
    length: int
    near: str | None = None

    @classmethod
    def for_title(cls, title: str, frequencies: Mapping[str, int] | None = None) -> TitleSearch:
        """Return the search for a title: its key, all but one of its rarest words, its near
        query (selectivity.py)."""
        norm = title_norm(title)
        return cls(title_key(title), selectivity.title_tsquery(norm, frequencies), len(norm),
                   selectivity.near_tsquery(norm, frequencies))  # fmt: skip


# The exact pass: one btree probe per distinct key of the batch.
_BY_KEY = """
SELECT q.i, {outer} FROM jsonb_to_recordset(%s::jsonb) AS q(i int, key text, len int)
CROSS JOIN LATERAL (
    SELECT {columns} FROM {table}
    WHERE {alias}.title_key = q.key
    ORDER BY abs(length({alias}.title_norm) - q.len)
    LIMIT {limit}
) sub{join}
"""
# The full-text pass, for what the key did not settle: the GIN index alone (no OR with the key,
# which made PostgreSQL BitmapOr both and sort every match), exact-key records excluded (the
# exact pass has them). A search's query is one or more to_tsquery expressions (text.k_of_n),
# any of which may match: one bitmap index scan per expression, ORed.
_BY_WORDS = """
SELECT q.i, {outer} FROM (
    SELECT u.i, u.key, u.len, ARRAY(
        SELECT to_tsquery('simple', t) FROM unnest(string_to_array(u.tsq, %s)) AS t
    ) AS tsqs
    FROM jsonb_to_recordset(%s::jsonb) AS u(i int, key text, tsq text, len int)
) q
CROSS JOIN LATERAL (
    SELECT {columns} FROM {table}
    WHERE to_tsvector('simple'::regconfig, COALESCE({alias}.title_norm, '')) @@ ANY(q.tsqs)
      AND {alias}.title_key <> q.key
    ORDER BY abs(length({alias}.title_norm) - q.len)
    LIMIT {limit}
) sub{join}
"""
# Papers' locators are joined after the LIMIT: inside it the join would run per search.
_PAPER_JOIN = " LEFT JOIN resolution_paperlocator l ON l.paper_id = sub.id"
_TABLES: tuple[tuple[str, str, str, str, str, Any], ...] = (
    ("curation_paper p", "p", _PAPER_BASE, _PAPER_JOIN, f", {_LOCATOR_COLUMNS}", _paper),
    (_WORKS, "c", _CROSSREF_COLUMNS, "", "", _crossref),
)


def _run_lateral(template: str, params: list[Any]) -> list[list[tuple[int, Candidate]]]:
    """Run a per-search statement on both catalogues; return (search index, candidate) rows."""
    found = []
    for table, alias, columns, join, extra, build in _TABLES:
        # The subquery's column names: "p.title" is title, "... AS updated_year" updated_year.
        outer = ", ".join(f"sub.{c.split()[-1].split('.')[-1]}" for c in columns.split(",")) + extra
        sql = template.format(outer=outer, columns=columns, table=table, alias=alias,
                              limit=CANDIDATE_LIMIT, join=join)  # fmt: skip
        found.append([(row[0], build(row[1:])) for row in _select(sql, params)])
    return found


def title_candidates_batch(searches: Sequence[TitleSearch | None]) -> list[list[Candidate]]:
    """Return, for each search, the records whose title equals it, or shares most rare words.

    Two passes: every key at once through the btree index, then the full-text search only
    where it can still matter -- most of the rarest words where the key found nothing, the two
    rarest where it found a record (its siblings). Per catalogue a search's candidates are its
    exact records first, then full-text ones by closeness of length, at most CANDIDATE_LIMIT.
    """
    found: list[list[Candidate]] = [[] for _ in searches]
    keyed = [(i, s) for i, s in enumerate(searches) if s is not None and s.key]
    exact: list[list[list[Candidate]]] = [[[] for _ in searches] for _ in _TABLES]
    if keyed:
        params = [json_list({"i": i, "key": s.key, "len": s.length} for i, s in keyed)]
        for table_rows, rows in zip(exact, _run_lateral(_BY_KEY, params), strict=True):
            for i, candidate in rows:
                table_rows[i].append(candidate)
    wanted: list[tuple[int, TitleSearch, str]] = []
    for i, s in enumerate(searches):
        if s is None:
            continue
        query = s.near if any(rows[i] for rows in exact) else s.query
        if query:
            wanted.append((i, s, query))
    by_words: list[list[list[Candidate]]] = [[[] for _ in searches] for _ in _TABLES]
    if wanted:
        params = [
            QUERY_SEPARATOR,
            json_list(
                {"i": i, "key": s.key or _NO_MATCH, "tsq": q, "len": s.length} for i, s, q in wanted
            ),
        ]
        for table_rows, rows in zip(by_words, _run_lateral(_BY_WORDS, params), strict=True):
            for i, candidate in rows:
                table_rows[i].append(candidate)
    for keyed_rows, word_rows in zip(exact, by_words, strict=True):
        for i, own in enumerate(keyed_rows):
            found[i].extend((own + word_rows[i])[:CANDIDATE_LIMIT])
    return found


def title_candidates(title: str, frequencies: Mapping[str, int] | None = None) -> list[Candidate]:
    """Return catalogue records whose title shares most rare words with title, or equals it."""
    return title_candidates_batch([TitleSearch.for_title(title, frequencies)])[0]


@dataclass(frozen=True)
class LocatorSearch:
    """One reference's locator search: the (volume, first page) pairs its numbers could be,
    its abbreviated words glued (venues.VenueText.glued) and its words, to rank by."""

    pairs: tuple[tuple[str, str], ...]
    glued: str
    words: str  # the string's words, space-separated, with a space at each end


# Per (volume, first page) pair of a reference: the works there whose journal key stands in the
# string first, then those whose first author does, at most LOCATOR_PER_PAIR. A pair is shared
# by works of many journals, more as the catalogue grows (a page 1, a volume 12): only the few
# the string can name are built and validated, not all of them.
_BY_LOCATOR = """
SELECT q.i, {outer} FROM jsonb_to_recordset(%s::jsonb) AS q(i int, v text, p text, g text, w text)
CROSS JOIN LATERAL (
    SELECT {columns} FROM {table}
    WHERE {where}
    ORDER BY {journal} DESC,
             strpos(q.w, ' ' || lower({alias}.first_author) || ' ') > 0 DESC, {order}
    LIMIT {limit}
) sub{join}
"""
_LOCATOR_TABLES: tuple[tuple[str, str, str, str, str, str, str, str, Any], ...] = (
    (_WORKS, "c", _CROSSREF_COLUMNS,
     "c.volume = q.v AND c.first_page = q.p AND c.volume <> ''",
     "(c.venue_key <> '' AND strpos(q.g, c.venue_key) > 0"
     " OR c.short_venue_key <> '' AND strpos(q.g, c.short_venue_key) > 0)",
     "c.doi", "", "", _crossref),
    (f"{_PAPERS}", "p", f"{_PAPER_BASE}, {_LOCATOR_COLUMNS}",
     "l.volume = q.v AND l.first_page = q.p",
     "strpos(q.g, l.venue_key) > 0", "p.arxiv_id", "", "", _paper),
)  # fmt: skip


def locator_candidates(searches: Sequence[LocatorSearch | None]) -> list[list[Candidate]]:
    """Return, for each search, the records published at its (volume, first page) pairs, of
    any journal: per pair those whose journal the string names first, at most
    LOCATOR_PER_PAIR."""
    found: list[list[Candidate]] = [[] for _ in searches]
    rows = [
        {"i": i, "v": v, "p": p, "g": s.glued, "w": s.words}
        for i, s in enumerate(searches)
        if s is not None
        for v, p in s.pairs
    ]
    if not rows:
        return found
    params = [json_list(rows)]
    for table, alias, columns, where, journal, order, join, extra, build in _LOCATOR_TABLES:
        outer = ", ".join(f"sub.{c.split()[-1].split('.')[-1]}" for c in columns.split(",")) + extra
        sql = _BY_LOCATOR.format(outer=outer, columns=columns, table=table, alias=alias,
                                 where=where, journal=journal, order=order,
                                 limit=LOCATOR_PER_PAIR, join=join)  # fmt: skip
        for row in _select(sql, params):
            found[row[0]].append(build(row[1:]))
    return found
