"""Version sets: an arXiv paper and the DOI it was published under are one work (issue 25).

Three statements tie an arXiv id to a published DOI, strongest first:

- `arxiv_doi`: the arXiv record's own `doi` (Paper.doi);
- `crossref_relation`: a Crossref work's `relation` says so: a published work `has-preprint`
  the arXiv paper (as an arXiv DOI or an arXiv id), or an arXiv DOI's work `is-preprint-of`
  the published DOI (`CrossrefWork.arxiv_versions`, filled at import by `relation_versions`);
- `journal_ref`: the arXiv record's journal-ref (PaperLocator) names the journal, volume and
  first page of a Crossref work, and their years (where both have one) agree within one.

Only arXiv papers known here count: a relation naming a paper citerec does not hold changes
nothing. A DOI two papers claim, or a paper whose strongest statements name two DOIs, is a
conflict: neither is linked by version, and the evidence says so (`version_conflict`).

Reads only. The resolver asks which arXiv paper a DOI record is (a reference giving the journal
DOI verifies to the preprint and keeps the DOI) and which DOI an arXiv paper was published
under; the API and the record page show both identifiers of such a link (`shown_version`); the
notices ask Crossref about an arXiv work's published DOI (`published_dois`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from curation.catalogue import records as catalogue
from curation.catalogue.records import Candidate
from curation.references.identifiers import (
    ARXIV_DOI_PREFIX,
    arxiv_id_from_doi,
    canonical_arxiv_id,
    canonical_doi,
    doi_key,
    is_arxiv_doi,
)
from curation.server_cursors import server_bound_cursor
from curation.states import ResolverSource

ARXIV_DOI, CROSSREF_RELATION, JOURNAL_REF = "arxiv_doi", "crossref_relation", "journal_ref"
_STRENGTH = {ARXIV_DOI: 0, CROSSREF_RELATION: 1, JOURNAL_REF: 2}  # lower is stronger
_ARXIV_TOKEN, _DOI_TOKEN = "arxiv:", "doi:"
_TOKEN_CHARS = 300  # CrossrefWork.arxiv_versions' item size


@dataclass(frozen=True)
class VersionLink:
    """One statement that an arXiv paper was published under a DOI, and who makes it."""

    arxiv_id: str
    doi: str
    via: str

    def describe(self) -> dict[str, str]:
        """Return the link as evidence (and as the API shows it)."""
        return {"arxiv_id": self.arxiv_id, "doi": self.doi, "via": self.via}


@dataclass(frozen=True)
class Decision:
    """What the version statements decide for one DOI or one arXiv paper."""

    link: VersionLink | None = None
    conflict: tuple[VersionLink, ...] = ()  # the statements that disagree (no link then)
    reason: str = ""

    def note(self, evidence: dict[str, Any]) -> None:
        """Write the decision into a verdict's evidence: the version set, or why none."""
        if self.link is not None:
            evidence["version_set"] = self.link.describe()
        elif self.conflict:
            evidence["version_conflict"] = {
                "claims": [c.describe() for c in self.conflict],
                "decision": self.reason,
            }


# --- Crossref `relation`, at import (pure) -------------------------------------------------
def _related_arxiv_id(item: Any) -> str | None:
    """Return the arXiv id a relation entry names (an arXiv DOI, an arXiv id or URL), or None."""
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        return None
    value, kind = item["id"], str(item.get("id-type") or "").lower()
    if kind in ("doi", "uri", "url", ""):
        found = arxiv_id_from_doi(canonical_doi(value))
        if found is not None:
            return canonical_arxiv_id(found)
    if kind in ("arxiv", "uri", "url", ""):
        return canonical_arxiv_id(value)
    return None


def _related_doi(item: Any) -> str | None:
    """Return the DOI a relation entry names (a DOI, or a doi.org URL), or None."""
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        return None
    if str(item.get("id-type") or "").lower() not in ("doi", "uri", "url", ""):
        return None
    return canonical_doi(item["id"])


def _entries(relation: dict[str, Any], name: str) -> list[Any]:
    value = relation.get(name)
    return value if isinstance(value, list) else []


class _Fields(Protocol):
    """A work's fields by JSON name: a dict, or the kept fields of crossref_decode."""

    def get(self, key: str, default: Any = None, /) -> Any: ...


def relation_versions(doi: str, work: _Fields) -> list[str]:
    """Return the arXiv versions a Crossref work's `relation` names, as stored tokens.

    A published work that `has-preprint` an arXiv paper gives "arxiv:<id>"; the work of an
    arXiv DOI that `is-preprint-of` a published DOI gives "doi:<doi>". Other relations (a
    preprint server other than arXiv, has-version, references) name no arXiv version. An
    entry of an unexpected shape is passed over: `relation` is optional, and a work is never
    refused for it.
    """
    relation = work.get("relation")
    if not isinstance(relation, dict):
        return []
    tokens: set[str] = set()
    if is_arxiv_doi(doi):
        for item in _entries(relation, "is-preprint-of"):
            published = _related_doi(item)
            if published and not is_arxiv_doi(published):
                tokens.add(_DOI_TOKEN + published)
    else:
        for item in _entries(relation, "has-preprint"):
            arxiv_id = _related_arxiv_id(item)
            if arxiv_id:
                tokens.add(_ARXIV_TOKEN + arxiv_id)
    return sorted(t for t in tokens if len(t) <= _TOKEN_CHARS)


# --- lookups -------------------------------------------------------------------------------
# Each list a statement asks about is sent once, as one JSON text (catalogue.json_list), and
# unpacked by the server into a MATERIALIZED row the rest refers to: the lists were quoted
# element by element in Python, and parsed by the server wherever they appeared.
def _unpacked(name: str) -> str:
    return catalogue.UNPACKED.replace("%s", f"%({name})s")


# The statements naming any of a batch's DOIs (`asked`: dois, and tokens "doi:<doi>" of each).
# A Crossref work's locator is matched under each of its journal keys; works in hand that the
# catalogue lacks yet (the Crossref API's answers) come as their own locator rows.
_LOCATED = """
located AS (
    SELECT c.doi, k.venue, c.volume, c.first_page AS page, c.year
      FROM resolution_crossrefwork c
     CROSS JOIN LATERAL unnest(ARRAY[c.venue_key, c.short_venue_key]) AS k(venue)
     WHERE c.doi = ANY((SELECT dois FROM asked)::text[]) AND c.volume <> '' AND k.venue <> ''
    UNION ALL
    SELECT * FROM jsonb_to_recordset(%(in_hand)s::jsonb)
        AS h(doi text, venue text, volume text, page text, year int)
)
"""
_DOI_STATEMENTS = """
SELECT p.arxiv_id, p.doi, 'arxiv_doi' FROM curation_paper p
 WHERE p.doi = ANY((SELECT dois FROM asked)::text[]) AND p.doi <> ''  -- so the partial index serves
UNION ALL
SELECT p.arxiv_id, q.doi, 'journal_ref' FROM located q
  JOIN resolution_paperlocator l
    ON l.volume = q.volume AND l.first_page = q.page AND l.venue_key = q.venue
  JOIN curation_paper p ON p.id = l.paper_id
 WHERE q.year IS NULL OR l.year IS NULL OR abs(l.year - q.year) <= 1
UNION ALL
SELECT substr(t.token, 7), c.doi, 'crossref_relation'
  FROM resolution_crossrefwork c CROSS JOIN LATERAL unnest(c.arxiv_versions) AS t(token)
 WHERE c.doi = ANY((SELECT dois FROM asked)::text[]) AND t.token LIKE 'arxiv:%%'
UNION ALL
SELECT substr(c.doi, 16), substr(t.token, 5), 'crossref_relation'
  FROM resolution_crossrefwork c CROSS JOIN LATERAL unnest(c.arxiv_versions) AS t(token)
 WHERE c.arxiv_versions <> '{}' AND c.arxiv_versions && (SELECT tokens FROM asked)
   AND t.token = ANY((SELECT tokens FROM asked)::varchar[])
"""

_BY_DOI = (
    f"""
WITH asked AS MATERIALIZED (
    SELECT d.dois, ARRAY(SELECT 'doi:' || x FROM unnest(d.dois) AS x)::varchar[] AS tokens
      FROM (SELECT {_unpacked("dois")} AS dois) d
),"""
    + _LOCATED
    + _DOI_STATEMENTS
)

# The statements naming a batch's arXiv papers (`papers`: ids, their tokens "arxiv:<id>" and
# their arXiv DOIs; `batch`: those papers' rows, and whether each has a locator, for the two
# statements they make).
_BY_ARXIV_ID = """
SELECT b.arxiv_id, b.doi, 'arxiv_doi' FROM batch b WHERE b.doi <> ''
UNION ALL
SELECT b.arxiv_id, c.doi, 'journal_ref' FROM batch b
  JOIN resolution_paperlocator l ON l.paper_id = b.id
  JOIN resolution_crossrefwork c
    ON c.volume = l.volume AND c.first_page = l.first_page
   AND l.venue_key IN (c.venue_key, c.short_venue_key)
 WHERE b.located AND c.volume <> ''
   AND (l.year IS NULL OR c.year IS NULL OR abs(l.year - c.year) <= 1)
UNION ALL
SELECT substr(t.token, 7), c.doi, 'crossref_relation'
  FROM resolution_crossrefwork c CROSS JOIN LATERAL unnest(c.arxiv_versions) AS t(token)
 WHERE c.arxiv_versions <> '{}' AND c.arxiv_versions && (SELECT tokens FROM papers)
   AND t.token = ANY((SELECT tokens FROM papers)::varchar[])
UNION ALL
SELECT substr(c.doi, 16), substr(t.token, 5), 'crossref_relation'
  FROM resolution_crossrefwork c CROSS JOIN LATERAL unnest(c.arxiv_versions) AS t(token)
 WHERE c.doi = ANY((SELECT arxiv_dois FROM papers)::text[]) AND t.token LIKE 'doi:%%'
"""

# The statements naming a batch's arXiv papers, and those naming the DOIs these give (whether
# another paper claims one too), in one statement: a round trip and a plan fewer a batch.
_BY_ARXIV_ID_AND_THEIR_DOIS = f"""
WITH papers AS MATERIALIZED (
    SELECT a.ids, ARRAY(SELECT 'arxiv:' || x FROM unnest(a.ids) AS x)::varchar[] AS tokens,
           ARRAY(SELECT '{ARXIV_DOI_PREFIX}' || lower(x) FROM unnest(a.ids) AS x) AS arxiv_dois
      FROM (SELECT {_unpacked("ids")} AS ids) a
),
batch AS MATERIALIZED (  -- the papers in hand come with their rows; the rest are read
    SELECT * FROM jsonb_to_recordset(%(in_hand_papers)s::jsonb)
        AS h(id bigint, arxiv_id text, doi text, located boolean)
    UNION ALL
    SELECT p.id, p.arxiv_id, p.doi, true FROM curation_paper p
     WHERE p.arxiv_id = ANY({_unpacked("unread")})
),
named AS ({_BY_ARXIV_ID}),
asked AS MATERIALIZED (
    SELECT coalesce(array_agg(DISTINCT lower(btrim(doi))), '{{}}')::text[] AS dois,
           coalesce(array_agg(DISTINCT 'doi:' || lower(btrim(doi))), '{{}}')::varchar[] AS tokens
      FROM named WHERE doi <> '' AND lower(doi) NOT LIKE '{ARXIV_DOI_PREFIX}%%'
),{_LOCATED}SELECT * FROM named UNION ALL ({_DOI_STATEMENTS})"""


def _select(sql: str, params: dict[str, Any]) -> list[tuple[str, str, str]]:
    with server_bound_cursor() as cursor:
        cursor.execute(sql, params)
        return [(str(a), doi_key(str(d)), str(via)) for a, d, via in cursor.fetchall()]


@dataclass
class VersionSets:
    """The version statements about a batch's DOIs and arXiv papers, asked for once each.

    `ask_dois` and `ask_papers` add what the catalogues say; `for_doi` and `for_paper` decide.
    """

    papers: dict[str, Candidate] = field(default_factory=dict)  # the known papers named
    _links: dict[tuple[str, str], VersionLink] = field(default_factory=dict)
    # The (paper, DOI) keys of _links by paper and by DOI: a batch decides hundreds of links.
    _keys_by_paper: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    _keys_by_doi: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    _asked_dois: set[str] = field(default_factory=set)
    _asked_papers: set[str] = field(default_factory=set)
    _missing: set[str] = field(default_factory=set)  # arXiv ids named that citerec lacks

    def know(self, papers: Iterable[Candidate]) -> None:
        """Remember arXiv papers already read from the catalogue (the batch's identifiers and
        links), so that statements naming them need no second read."""
        self.papers.update((c.arxiv_id, c) for c in papers if c.arxiv_id)

    def ask_dois(
        self, dois: Iterable[str], in_hand: Sequence[tuple[Candidate, Sequence[str]]] = ()
    ) -> None:
        """Add every statement naming these DOIs (one statement for the batch).

        `in_hand`: Crossref works not in the catalogue yet (what the Crossref API answered),
        with their `relation_versions`; their locators and relations count as if stored.
        """
        in_hand = [(c, tokens) for c, tokens in in_hand if c.doi]
        wanted = sorted(
            ({doi_key(d) for d in dois} | {doi_key(c.doi or "") for c, _ in in_hand})
            - self._asked_dois
        )
        if not wanted:
            return
        self._asked_dois.update(wanted)
        in_hand_rows = [
            {"doi": c.doi, "venue": venue, "volume": c.volume, "page": c.first_page,
             "year": c.years[0] if c.years else None}
            for c, _ in in_hand if c.volume for venue in c.venue_keys
        ]  # fmt: skip
        found = _select(
            _BY_DOI,
            {"dois": catalogue.json_list(wanted), "in_hand": catalogue.json_list(in_hand_rows)},
        )
        for candidate, tokens in in_hand:
            for token in tokens:
                if token.startswith(_ARXIV_TOKEN):
                    arxiv_id = token[len(_ARXIV_TOKEN) :]
                    found.append((arxiv_id, doi_key(candidate.doi or ""), CROSSREF_RELATION))
        self._add(found)

    def ask_papers(self, arxiv_ids: Iterable[str]) -> None:
        """Add every statement naming these arXiv papers, and every statement naming the DOIs
        found for them (whether another paper claims one too): one statement, and one more for
        the papers these name that are not in hand yet."""
        wanted = sorted(set(arxiv_ids) - self._asked_papers)
        if not wanted:
            return
        self._asked_papers.update(wanted)
        # A paper read from the catalogue this batch brings its row: no second read of it.
        held = [self.papers[a] for a in wanted if a in self.papers]
        rows = [{"id": c.paper_id, "arxiv_id": c.arxiv_id, "doi": c.doi or "",
                 "located": bool(c.volume)} for c in held if c.paper_id is not None]  # fmt: skip
        given = {r["arxiv_id"] for r in rows}
        found = _select(_BY_ARXIV_ID_AND_THEIR_DOIS, {
            "ids": catalogue.json_list(wanted), "in_hand": "[]",
            "in_hand_papers": catalogue.json_list(rows),
            "unread": catalogue.json_list(a for a in wanted if a not in given),
        })  # fmt: skip
        # Every statement about the papers' own DOIs came with them: those DOIs count as asked.
        named = set(wanted)
        self._asked_dois.update(d for a, d, _ in found if a in named and d and not is_arxiv_doi(d))
        self._add(found)

    def _add(self, found: Iterable[tuple[str, str, str]]) -> None:
        """Keep each (paper, DOI) pair once, by its strongest statement; learn which papers
        named are known here (one statement for those not seen yet)."""
        found = [(a, d, via) for a, d, via in found if d and not is_arxiv_doi(d)]
        unseen = {a for a, _, _ in found} - set(self.papers) - self._missing
        if unseen:
            known = catalogue.papers_by_arxiv_id(unseen)
            self.papers.update(known)
            self._missing |= unseen - set(known)
        for arxiv_id, doi, via in found:
            if arxiv_id not in self.papers:
                continue  # a relation naming a paper citerec does not hold changes nothing
            key = (arxiv_id, doi)
            current = self._links.get(key)
            if current is None or _STRENGTH[via] < _STRENGTH[current.via]:
                self._links[key] = VersionLink(arxiv_id, doi, via)
                self._keys_by_paper.setdefault(arxiv_id, set()).add(key)
                self._keys_by_doi.setdefault(doi, set()).add(key)

    def for_doi(self, doi: str) -> Decision:
        """Return which known arXiv paper a DOI is the published version of, if exactly one."""
        doi = doi_key(doi)
        claims = self._claims(self._keys_by_doi.get(doi, ()))
        papers = sorted({c.arxiv_id for c in claims})
        if len(papers) > 1:
            reason = (f"doi:{doi} is claimed by {len(papers)} arXiv papers "
                      f"({', '.join(papers)}): linked to none of them by version")  # fmt: skip
            return Decision(conflict=tuple(claims), reason=reason)
        return Decision(link=claims[0]) if claims else Decision()

    def for_paper(self, arxiv_id: str) -> Decision:
        """Return the DOI a known arXiv paper was published under, if its statements agree.

        The strongest kind of statement decides (the arXiv record's own DOI before Crossref's
        relation before a journal-ref match); two DOIs of that kind, or a DOI another paper
        claims as well, is a conflict.
        """
        claims = self._claims(self._keys_by_paper.get(arxiv_id, ()))
        if not claims:
            return Decision()
        strongest = [c for c in claims if _STRENGTH[c.via] == _STRENGTH[claims[0].via]]
        if len({c.doi for c in strongest}) > 1:
            dois = ", ".join(sorted(c.doi for c in strongest))
            reason = (f"arXiv:{arxiv_id} is said ({claims[0].via}) to be published under "
                      f"{len(strongest)} DOIs ({dois}): none is taken")  # fmt: skip
            return Decision(conflict=tuple(strongest), reason=reason)
        by_doi = self.for_doi(strongest[0].doi)
        if by_doi.conflict:
            return by_doi
        return Decision(link=strongest[0])

    def _claims(self, keys: Iterable[tuple[str, str]]) -> list[VersionLink]:
        """Return the statements of these (paper, DOI) keys, strongest first, then by paper and DOI."""
        found = [self._links[key] for key in keys]
        return sorted(found, key=lambda c: (_STRENGTH[c.via], c.arxiv_id, c.doi))

    def papers_by_doi(self) -> dict[str, Candidate]:
        """Return, by DOI asked, the one known arXiv paper it is a version of (no conflict)."""
        found = {}
        for doi in self._asked_dois:
            link = self.for_doi(doi).link
            if link is not None:
                found[doi] = self.papers[link.arxiv_id]
        return found

    def decide(self, linked: Candidate, evidence: dict[str, Any]) -> str | None:
        """Return the arXiv paper a verified record links (None: none), noting its version set.

        An arXiv paper links itself and is noted with its published DOI; a DOI record links
        the one known arXiv paper it is a version of. Both must have been asked about.
        """
        if linked.arxiv_id:
            self.for_paper(linked.arxiv_id).note(evidence)
            return linked.arxiv_id
        if linked.source != ResolverSource.DOI or not linked.doi:
            return None
        decision = self.for_doi(linked.doi)
        decision.note(evidence)
        return decision.link.arxiv_id if decision.link else None


def published_dois(arxiv_ids: Iterable[str]) -> dict[str, VersionLink]:
    """Return the published DOI of each of these arXiv papers that has one, without conflict."""
    sets = VersionSets()
    wanted = sorted(set(arxiv_ids))
    sets.ask_papers(wanted)
    decided = {a: sets.for_paper(a).link for a in wanted}
    return {a: link for a, link in decided.items() if link is not None}


def shown_version(
    arxiv_id: str | None, paper_doi: str | None, evidence: Mapping[str, Any] | None
) -> dict[str, str] | None:
    """Return the version set a reader is shown for a link to an arXiv paper, or None.

    What the resolver noted when it linked the paper; for a link it did not make (a curator's,
    an imported record's, one made before version sets), the arXiv record's own DOI. A link
    whose version statements conflict shows none.
    """
    if not arxiv_id:
        return None
    noted = (evidence or {}).get("version_set")
    if isinstance(noted, dict) and noted.get("arxiv_id") == arxiv_id and noted.get("doi"):
        return {"arxiv_id": arxiv_id, "doi": str(noted["doi"]), "via": str(noted.get("via"))}
    if (evidence or {}).get("version_conflict"):
        return None
    doi = canonical_doi(paper_doi) if paper_doi else None
    if doi and not is_arxiv_doi(doi):
        return VersionLink(arxiv_id, doi, ARXIV_DOI).describe()
    return None
