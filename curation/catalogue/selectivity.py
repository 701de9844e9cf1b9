"""Full-text title queries shaped for a GIN index on a large catalogue (issue 43 item 2).

Measured per title search on a 1M-work catalogue shaped like the real population
(bench/bench_resolve_scale.py, the glutton-dev titles, PostgreSQL CPU per search):

- "three of the four rarest words" as text.k_of_n writes it, `t1 & ((t2 & t3) | ...)`, made
  the index walk the whole posting lists of the words inside the OR: 376 us a search (50 at
  100k). Written as four conjunctions, each leaving one word out (`title_tsquery`), the same
  titles match and each conjunction is a separate index scan that skips through its lists:
  326 us. Needing all six rarest but one matched fewer titles but cost more (702 us): every
  word is one more descent of a large posting tree.
- Beside an exact match, the titles holding its two rarest words (text.near_tsquery) grew with
  the catalogue, since rare words go together in real titles ("Hutchinson-Gilford progeria"):
  10.1 titles a search at 1M, 150 us. The four rarest (`near_tsquery`) find the same siblings
  a title can tie with (a title holding all of this one's words holds those four), 2.0 titles,
  100 us; eight cost 276 us.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from curation.catalogue.text import QUERY_SEPARATOR, content_tokens

_TITLE_WORDS = 4  # the rarest four, all but one needed: one word lost to a typo or a cut
_NEAR_WORDS = 4  # beside an exact match: the titles holding its four rarest catalogue words
_TSQUERY_WORD = re.compile(r"[a-z0-9]+")  # what to_tsquery takes as a word unquoted


def _query_tokens(norm: str, frequencies: Mapping[str, int] | None) -> list[str]:
    return [t for t in content_tokens(norm, frequencies) if _TSQUERY_WORD.fullmatch(t)]


def all_but_one(tokens: list[str]) -> str:
    """Return to_tsquery expressions, joined by QUERY_SEPARATOR (any may match), needing all
    the tokens but one when there are three or more, all of them when fewer: one conjunction
    per token left out, which the GIN index reads by skipping (an OR inside one expression
    makes it read the OR's posting lists whole)."""
    if len(tokens) < 3:
        return " & ".join(tokens)
    return QUERY_SEPARATOR.join(
        " & ".join(tokens[:i] + tokens[i + 1 :]) for i in range(len(tokens))
    )


def title_tsquery(norm: str, frequencies: Mapping[str, int] | None = None) -> str | None:
    """Return the search for titles sharing all but one of this one's four rarest words (text.
    tsquery's "three of four", or all of two or one), or None when it has no word."""
    tokens = _query_tokens(norm, frequencies)[:_TITLE_WORDS]
    return all_but_one(tokens) if tokens else None


def near_tsquery(norm: str, frequencies: Mapping[str, int] | None = None) -> str | None:
    """Return the search beside an exact match: titles holding its four rarest catalogue words
    (words no catalogue title holds are left out: they could only make it find nothing), the
    records that can still tie with or outrank it (the longer title a cut parse stands for,
    "Erratum: ...", "... II", another word order)."""
    tokens = _query_tokens(norm, frequencies)
    if frequencies:
        tokens = [t for t in tokens if frequencies.get(t, 0) > 0] or tokens
    return " & ".join(tokens[:_NEAR_WORDS]) or None
