"""The calibrated link probability (issue 25, item 5): in every whole-string link's evidence,
higher for more agreeing fields, and the high-precision mode that leaves low ones to curators."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings

from curation.resolution import calibration
from curation.resolution.resolver import resolve_raw
from curation.resolution.services.catalogue_imports import store_crossref_works
from tests.resolution.test_conflicts import work

FULL = "Varga T. Seasonal shifts in the gut flora of wild mountain hares. J Mammal. 2015;44:310-22."
THIN = "Seasonal shifts in the gut flora of wild mountain hare."


@pytest.fixture
def hares() -> None:
    store_crossref_works([work("10.1000/gut.flora", "Seasonal shifts in the gut flora of wild "
                               "mountain hares", 2015, "44", "310-322", "Varga",
                               journal="J Mammal")])  # fmt: skip


def test_the_weights_file_matches_the_features() -> None:
    fitted = json.loads(calibration.WEIGHTS.read_text())
    assert tuple(fitted["features"]) == calibration.FEATURES
    assert len(calibration.weights()) == len(calibration.FEATURES)


@pytest.mark.django_db
def test_every_whole_string_link_carries_a_probability_higher_with_more_agreeing_fields(
    hares: None,
) -> None:
    _, full = resolve_raw(FULL)
    _, thin = resolve_raw(THIN)
    assert full.status == "verified_exact" and thin.status == "verified_fuzzy"
    p_full, p_thin = full.evidence["matched"]["probability"], thin.evidence["matched"]["probability"]
    assert 0.0 < p_thin < p_full <= 1.0


@pytest.mark.django_db
def test_the_high_precision_mode_leaves_a_less_certain_link_to_curators(hares: None) -> None:
    _, thin = resolve_raw(THIN)
    _, full = resolve_raw(FULL)
    bar = (thin.evidence["matched"]["probability"] + full.evidence["matched"]["probability"]) / 2
    with override_settings(CITEREC_MIN_LINK_PROBABILITY=bar):
        _, thin = resolve_raw(THIN)
        _, full = resolve_raw(FULL)
    assert thin.status == "unresolved" and thin.linked is None
    assert "below the high-precision bar" in thin.evidence["decision"]
    assert thin.evidence["candidates"][0]["doi"] == "10.1000/gut.flora"
    assert full.status == "verified_exact"
