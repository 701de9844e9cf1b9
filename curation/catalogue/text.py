"""Text helpers for matching: cleaned titles, folded names, and full-text queries."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from itertools import combinations

from curation.references import normalize_title

# Function words and words so common in scholarly titles that they cannot narrow a search.
_STOP = frozenset(
    "a an and are as at be by for from in into is it of on or over the to under via with without "
    "toward towards using based deep learning neural network networks model models data analysis "
    "approach method methods system systems new study efficient large language training".split()
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
# "... , June 2022", "..., 2014", "(2019)": dates that other systems leave at a title's end.
_DATE_TAIL = re.compile(rf"\s*[,.]?\s*\(?(?:{_MONTH}\s+)?(?:1[6-9]|20)\d\d\)?\s*[.,]?\s*$", re.I)
_NEAR_WORDS = 2  # the rarest two words of an exactly matched title find its siblings
QUERY_SEPARATOR = ";"  # between the to_tsquery expressions of one search (any may match)
_MAX_QUERY_TOKENS = 4  # the rarest four: fewer posting lists to read, one typo tolerated


_TSQUERY_WORD = re.compile(r"[a-z0-9]+")  # what to_tsquery takes as a word unquoted
_AFTER_DATE = ").,"  # what _DATE_TAIL lets follow the year, besides spaces


def _may_end_in_date(title: str) -> bool:
    """Return False when _DATE_TAIL cannot match: the title does not end in a digit before
    closing punctuation. Most titles end in a word, and the pattern, unanchored at its start,
    was tried at every position of every title (15 us a reference)."""
    end = len(title)
    while end and (title[end - 1] in _AFTER_DATE or title[end - 1].isspace()):
        end -= 1
    return end > 0 and title[end - 1].isdecimal()


def clean_title(title: str) -> str:
    """Return the title without a trailing date another system glued to it."""
    undated = _DATE_TAIL.sub("", title) if _may_end_in_date(title) else title
    stripped = undated.strip(" ,.;")
    return stripped if len(stripped) >= 3 else title.strip()


# One reference's title is normalised by its query, its title search and its string match, and
# each key needs the normalised form again: remembered (a pure function of the text) instead.
@lru_cache(maxsize=16_384)
def title_norm(title: str) -> str:
    """Return the normalised title used in the catalogues."""
    return normalize_title(title)


def title_key(title: str) -> str:
    """Return the exact-lookup key of a title (normalised, spaces removed, bounded)."""
    return title_norm(title).replace(" ", "")[:255]  # compact_title, from the remembered form


# Every candidate's author list is folded name by name for each reference it is checked against,
# and surnames repeat across a catalogue: remembered (a pure function of the name).
@lru_cache(maxsize=65_536)
def fold_name(name: str) -> str:
    """Return a surname folded for comparison: ASCII, lower case, letters only."""
    decomposed = unicodedata.normalize("NFKD", name)
    ascii_name = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"[^a-z]", "", ascii_name.casefold())


def content_tokens(norm: str, frequencies: Mapping[str, int] | None = None) -> list[str]:
    """Return the distinct words of a normalised title that can narrow a search, rarest first."""
    words = list(dict.fromkeys(norm.split()))
    useful = [w for w in words if w not in _STOP and (len(w) > 1 or w.isdigit())]
    counts = frequencies or {}
    # Catalogue statistics when we have them; otherwise a long word is the best guess at a rare one.
    return sorted(useful or words, key=lambda w: (counts.get(w, 0), -len(w), w))


def k_of_n(tokens: list[str], need: int) -> str:
    """Return to_tsquery expressions, joined by QUERY_SEPARATOR, needing `need` of the tokens.

    A title holds `need` of the tokens (rarest first) exactly when, for its rarest one held,
    it holds need - 1 of those after it: one expression per such first token, each requiring
    that token. Equal to the plain "OR of every combination", but the GIN index can drive each
    by its required (rare) word instead of walking the union of every posting list.
    """
    parts = []
    for j in range(len(tokens) - need + 1):
        rest = [" & ".join(g) for g in combinations(tokens[j + 1 :], need - 1)]
        if not rest or rest == [""]:
            parts.append(tokens[j])
        elif len(rest) == 1:
            parts.append(f"{tokens[j]} & {rest[0]}")
        else:
            parts.append(f"{tokens[j]} & ({' | '.join(f'({g})' for g in rest)})")
    return QUERY_SEPARATOR.join(parts)


def tsquery(norm: str, frequencies: Mapping[str, int] | None = None) -> str | None:
    """Return to_tsquery expressions (k_of_n) needing most of the title's rarest words, or None.

    Requiring k of the n rarest words (all when short) keeps the match set small on a
    3-million-title catalogue yet tolerates one misspelled or glued word.
    """
    tokens = [t for t in content_tokens(norm, frequencies) if _TSQUERY_WORD.fullmatch(t)]
    tokens = tokens[:_MAX_QUERY_TOKENS]
    if not tokens:
        return None
    need = max(1, -(-len(tokens) * 3 // 5))  # ceil(0.6 n): 1→1, 2→2, 3→2, 4→3
    return k_of_n(tokens, need)


def near_tsquery(norm: str, frequencies: Mapping[str, int] | None = None) -> str | None:
    """Return a to_tsquery expression needing the title's two rarest catalogue words.

    The search beside an exact match, for the records that can still tie with or outrank it:
    every title holding all of this one's words holds these two (the longer title a cut parse
    stands for, "Erratum: ...", "... II", another word order). The GIN index reads every
    queried word's whole posting list (a common word's is dozens of pages at 3 million titles,
    a rare one's one or two), and "k of n" must also walk the union of them all, so two
    required rare words are the cheapest query that still finds those. Words no catalogue
    title holds are left out: they could only make it find nothing.
    """
    tokens = [t for t in content_tokens(norm, frequencies) if _TSQUERY_WORD.fullmatch(t)]
    if frequencies:
        tokens = [t for t in tokens if frequencies.get(t, 0) > 0] or tokens
    return " & ".join(tokens[:_NEAR_WORDS]) or None
