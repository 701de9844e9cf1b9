"""Word knowledge for repairs: glued-word segmentation and line-break hyphen decisions."""

from __future__ import annotations

import math
import re
from functools import lru_cache

from curation.references._lexicon import WORDS

_RANK: dict[str, int] = {}
for _i, _w in enumerate(WORDS):
    _RANK.setdefault(_w, _i + 1)
_MAX_LEN = max(map(len, _RANK))
_LOG_N = math.log(len(_RANK))

# Small words whose presence inside a long lowercase run is strong evidence of lost spaces.
GLUE_WORDS = frozenset(
    "a an and as at by for from if in into is of on or the to via when while with using "
    "across without within than that".split()
)
# Left parts that keep their hyphen: "Non- deterministic" is "Non-deterministic".
HYPHEN_PREFIXES = frozenset(
    "anti auto bi co counter cross de end fine half high inter intra large long low macro "
    "meta micro mid multi non off on one open out over post pre pro pseudo quasi real "
    "right self semi short single small sub super top two un under well wide zero".split()
)
# Right parts that are suffixes: "Learn- ing", "Implemen- tation".
_SUFFIX = re.compile(
    r"^(?:ing|ings|tion|tions|sion|sions|ation|ations|ed|er|ers|est|ly|ment|ments|ness|ity|"
    r"ities|ble|bly|ance|ances|ence|ences|al|ally|ic|ics|ical|ive|ives|ized|ize|izes|ization|"
    r"ism|isms|ist|ists|ous|ful|less|ship|ure|ures|age|ant|ants|ent|ents|ory|ary|ate|ated|"
    r"ates|ating|ify|ified|ular|ure|ty|ties|cy|cies|ry|ries|[a-z]{1,3}tion|[a-z]{1,2}ing)$"
)
# Suspended hyphens ("Inter- and Intra-Operator") keep their space.
SUSPENDED_NEXT = frozenset({"and", "or", "to", "&", "nor", "versus", "vs"})


def is_word(word: str) -> bool:
    """Return whether the lowercase word is in the embedded word list."""
    return word in _RANK


# The cost of a known word grows with its rank; unknown pieces are allowed (names,
# abbreviations) but cost more with length.
_KNOWN_COST = {word: math.log(rank + 1) + _LOG_N * 0.25 for word, rank in _RANK.items()}
_UNKNOWN_BASE, _UNKNOWN_PER_CHAR = 9.0, 2.5


# Every prefix of a known word: a piece that is not one cannot be extended into a known word.
_PREFIXES = frozenset(word[:end] for word in _RANK for end in range(1, len(word) + 1))
# The cost of an unknown piece by its length (index 0 unused).
_UNKNOWN_COST = tuple(_UNKNOWN_BASE + _UNKNOWN_PER_CHAR * length for length in range(_MAX_LEN + 1))


@lru_cache(maxsize=4096)
def segment(run: str) -> tuple[str, ...]:
    """Return the cheapest split of a lowercase letter run into words."""
    n = len(run)
    # Cheapest cost of run[:end] and where its last word starts. Each start, in order, offers
    # its pieces to the ends after it (a start's own cost is final by then): for every end the
    # candidates come in the order of their starts, and the first cheapest stays.
    cost_to = [0.0] + [math.inf] * n
    word_start = [0] * (n + 1)
    known, unknown = _KNOWN_COST, _UNKNOWN_COST  # locals: hot loop
    for start in range(n):
        base = cost_to[start]
        last = min(n, start + _MAX_LEN)
        # Known words only while the piece is a prefix of one (a few letters, not _MAX_LEN).
        known_at: dict[int, float] = {}
        for end in range(start + 1, last + 1):
            piece = run[start:end]
            if piece not in _PREFIXES:
                break
            word_cost = known.get(piece)
            if word_cost is not None:
                known_at[end] = word_cost
        for end in range(start + 1, last + 1):
            word_cost = known_at.get(end) if known_at else None
            cost = base + (unknown[end - start] if word_cost is None else word_cost)
            if cost < cost_to[end]:
                cost_to[end], word_start[end] = cost, start
    pieces: list[str] = []
    end = n
    while end > 0:
        start = word_start[end]
        pieces.append(run[start:end])
        end = start
    return tuple(reversed(pieces))


def join_hyphenated(left: str, right: str, continues: bool) -> str:
    """Return how "left- right" from a PDF line break should read.

    Keeps the hyphen when the right side starts uppercase ("Megatron- LM"), when the
    compound continues ("end- to-end"), when the left side is a prefix ("Non- deterministic")
    or when both halves are words and the join is not; otherwise joins ("Learn- ing").
    """
    lower_l, lower_r = left.lower(), right.lower()
    if right[:1].isupper() or right[:1].isdigit() or continues:
        return f"{left}-{right}"
    if lower_l in HYPHEN_PREFIXES:
        return f"{left}-{right}"
    if is_word(lower_l + lower_r):
        return left + right
    if _SUFFIX.match(lower_r):
        return left + right
    if is_word(lower_l) and is_word(lower_r):
        return f"{left}-{right}"
    return left + right
