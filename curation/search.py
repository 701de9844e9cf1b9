"""The curators' search over references: words, hosts, path parts and identifiers.

PostgreSQL's text-search parser keeps a URL, a host or a DOI as one token
("github.com/nvidia/apex"), so a word inside it was never found. Here both sides go through one
SQL function, `citerec_search_fold` (migration 0011), before the parser sees them: accents
stripped (NFD, combining marks dropped), lower case, and ASCII punctuation turned into spaces. A
reference's document is then its words in order ("https github com nvidia apex issues 1611"),
and a term is a phrase of its parts ("github.com" -> github <-> com, "10.1038/nature14539" ->
10 <-> 1038 <-> nature14539), so words, hosts, paths and identifiers are all found by one GIN
index on the expression (obs_text_fts). Core PostgreSQL only: no pg_trgm, no unaccent.

The document is an index expression, not a column: nothing is added to the tracked observation
table, so its history rows and triggers are unchanged, and nothing is stored twice.
"""

from __future__ import annotations

from functools import reduce

from django.contrib.postgres.search import (
    CombinedSearchQuery,
    SearchQuery,
    SearchVectorExact,
    SearchVectorField,
)
from django.db.models import F, Func, Q, TextField, Value

# The reference text and the fields parsed from it, in the order the document reads them.
SEARCHED_FIELDS = (
    "raw_text",
    "work_title",
    "work_venue",
    "work_doi",
    "work_arxiv_id",
    "work_pith_arxiv_id",
)
# More words than this in one search are ignored: each is one more index probe.
MAX_WORDS = 10


class ObservationSearchDocument(Func):
    """The search document of an observation, as the index obs_text_fts holds it."""

    function = "citerec_observation_search"
    output_field = SearchVectorField()

    def __init__(self) -> None:
        super().__init__(*(F(name) for name in SEARCHED_FIELDS))


class SearchFold(Func):
    """Fold text as documents are folded: no accents, lower case, punctuation as spaces."""

    function = "citerec_search_fold"
    output_field = TextField()


def _searchable(word: str) -> bool:
    return any(c.isalnum() for c in word)


def search_query(term: str) -> SearchQuery | CombinedSearchQuery | None:
    """Return the query matching every word of term (each word a phrase of its parts), or None."""
    words = [w for w in term.split() if _searchable(w)][:MAX_WORDS]
    if not words:
        return None
    phrases = [
        SearchQuery(SearchFold(Value(word)), config="simple", search_type="phrase")
        for word in words
    ]
    return reduce(lambda a, b: a & b, phrases)  # type: ignore[no-any-return]


def text_matches(term: str) -> Q:
    """Return the condition "the reference's text or parsed fields hold every word of term"."""
    query = search_query(term)
    if query is None:
        return Q(pk__in=[])  # nothing to look for: nothing found
    return Q(SearchVectorExact(ObservationSearchDocument(), query))
