"""How likely a whole-string link is right: a logistic model over the validation's evidence.

The validation (curation.resolution.validate) says which of the linked work's fields stand in
the reference and how far the next candidate is behind. A logistic regression over those facts,
fitted on development data (bench/calibrate.py: the glutton-dev works rendered in many citation
styles, dev fold only), turns them into a probability that the link is right; the held-aside
fold measures how well the probabilities hold (bench/README-styles.md).

The fitted weights live in calibration.json beside this module, with the data they came from.
The features are read from the evidence alone, so the same function scores a stored verdict.
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from curation.catalogue.text import fold_name

WEIGHTS = Path(__file__).with_name("calibration.json")
MARGIN_CAP = 40.0  # score points: a lead this large is as good as no rival at all

FEATURES = (
    "bias",
    "title_exact",
    "title_aligned",  # found by fuzzy alignment, not exactly
    "title_reordered",
    "title_similarity",
    "title_words",  # min(words, 12) / 12: a short title is more often shared by two works
    "first_author",
    "other_author",  # an author other than the first found, the first not
    "no_author_known",
    "year_agrees",
    "year_unknown",
    "volume",
    "first_page",
    "venue",
    "lead",  # the score lead over the next candidate, capped, 0-1
)


def features(matched: Mapping[str, Any], candidates: Sequence[Mapping[str, Any]]) -> list[float]:
    """Return the model's inputs for a link, from its evidence (validate.Validation.describe)."""
    exact = bool(matched.get("title_exact"))
    found = matched.get("title_found_at") is not None
    reordered = bool(matched.get("title_words_reordered"))
    authors = matched.get("authors_found") or []
    first = str(matched.get("first_author") or "").split()
    first_found = bool(first) and fold_name(first[-1]) in authors
    year = matched.get("year_check")
    return [
        1.0,
        float(exact),
        float(found and not exact and not reordered),
        float(reordered),
        float(matched.get("title_similarity") or 0.0) / 100.0 if found else 0.0,
        min(len(str(matched.get("title") or "").split()), 12) / 12.0,
        float(first_found),
        float(bool(authors) and not first_found),
        float(matched.get("author_check") == "unknown" and not authors),
        float(year == "agrees"),
        float(year == "unknown"),
        float(bool(matched.get("volume_found"))),
        float(bool(matched.get("first_page_found"))),
        float(bool(matched.get("venue_found"))),
        _lead(matched, candidates),
    ]


def _lead(matched: Mapping[str, Any], candidates: Sequence[Mapping[str, Any]]) -> float:
    """Return the score lead over the best other work among the described candidates (0-1)."""
    mine = (matched.get("doi"), matched.get("arxiv_id"))
    others = [
        float(c.get("score") or 0.0)
        for c in candidates
        if (c.get("doi"), c.get("arxiv_id")) != mine
    ]
    if not others:
        return 1.0
    lead = float(matched.get("score") or 0.0) - max(others)
    return max(0.0, min(lead, MARGIN_CAP)) / MARGIN_CAP


@cache
def weights() -> tuple[float, ...]:
    """Return the fitted weights, in FEATURES order."""
    fitted = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    if tuple(fitted["features"]) != FEATURES:
        raise ValueError(f"{WEIGHTS}: features {fitted['features']} are not {list(FEATURES)}")
    return tuple(float(w) for w in fitted["weights"])


def probability_of(values: Sequence[float], fitted: Sequence[float]) -> float:
    """Return the logistic model's probability for one link's features."""
    if len(values) != len(fitted):
        raise ValueError(f"{len(values)} features for {len(fitted)} weights")
    z = sum(map(operator.mul, fitted, values))
    return 1.0 / (1.0 + math.exp(-z)) if z > -50 else 0.0


def probability(matched: Mapping[str, Any], candidates: Sequence[Mapping[str, Any]]) -> float:
    """Return the probability that a whole-string link is right, rounded for the evidence."""
    return round(probability_of(features(matched, candidates), weights()), 4)
