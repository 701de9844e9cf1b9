"""The precision arithmetic (curation/resolution/precision.py): bands, Wilson intervals, and
the stratified estimate, on counts worked out by hand."""

from __future__ import annotations

import pytest

from curation.resolution.precision import Stratum, band_of, band_order, stratified, wilson


@pytest.mark.parametrize(
    ("step", "probability", "band"),
    [
        ("string", 0.0, "0.00–0.50"),
        ("string", 0.4999, "0.00–0.50"),
        ("string", 0.5, "0.50–0.80"),
        ("string", 0.9499, "0.90–0.95"),
        ("string", 0.99, "0.99–1.00"),
        ("string", 1.0, "0.99–1.00"),
        ("identifier", None, "no probability (identifier)"),
        ("", None, "no probability (no step)"),
    ],
)
def test_every_verdict_falls_in_one_band(step: str, probability: float | None, band: str) -> None:
    assert band_of(step, probability) == band


def test_bands_sort_low_to_high_then_the_steps_without_a_probability() -> None:
    bands = ["no probability (identifier)", "0.99–1.00", "0.00–0.50", "0.90–0.95"]
    assert sorted(bands, key=band_order) == [
        "0.00–0.50", "0.90–0.95", "0.99–1.00", "no probability (identifier)",
    ]  # fmt: skip


def test_wilson_interval_matches_the_formula_worked_by_hand() -> None:
    # 8 confirmed of 10: p = 0.8, z = 1.96 -> centre 0.7166, half 0.2247 (Wilson 1927).
    estimate = wilson(10, 2)
    assert estimate.precision == pytest.approx(0.8)
    assert estimate.low == pytest.approx(0.4902, abs=1e-4)
    assert estimate.high == pytest.approx(0.9433, abs=1e-4)


def test_wilson_interval_of_all_right_is_not_a_point() -> None:
    # 20 of 20 confirmed: the normal interval would be [1, 1]; Wilson's lower bound is 0.8389.
    estimate = wilson(20, 0)
    assert estimate.precision == 1.0
    assert estimate.low == pytest.approx(0.8389, abs=1e-4)
    assert estimate.high == 1.0


def test_nothing_checked_estimates_nothing_and_bad_counts_are_refused() -> None:
    assert wilson(0, 0).precision is None
    with pytest.raises(ValueError, match="3 overturned of 2 checked"):
        wilson(2, 3)


def test_stratified_estimate_weights_each_band_by_its_links_not_by_its_checks() -> None:
    # 900 links at the top band, all 10 checked right; 100 at the bottom, 5 of 10 overturned.
    # Unweighted that is 15/20 = 0.75; weighted by the links it is 0.9 * 1 + 0.1 * 0.5 = 0.95.
    strata = [Stratum("0.99–1.00", 900, 10, 0), Stratum("0.00–0.50", 100, 10, 5)]
    estimate = stratified(strata)
    assert estimate.precision == pytest.approx(0.95)
    assert estimate.checked == 20 and estimate.overturned == 5
    assert estimate.low is not None and estimate.high is not None
    assert estimate.low < 0.95 < estimate.high
    # The adjusted variance of each band (Agresti-Coull), with the finite-population correction.
    z2 = 1.959963984540054**2
    top = (10 + z2 / 2) / (10 + z2)
    bottom = (5 + z2 / 2) / (10 + z2)
    variance = (0.81 * top * (1 - top) / (10 + z2) * (1 - 10 / 900)
                + 0.01 * bottom * (1 - bottom) / (10 + z2) * (1 - 10 / 100))  # fmt: skip
    assert estimate.low == pytest.approx(0.95 - 1.959963984540054 * variance**0.5)
    assert estimate.high == 1.0  # 0.95 + 0.165, kept inside [0, 1]


def test_stratified_estimate_needs_every_band_that_holds_links() -> None:
    assert stratified([Stratum("a", 10, 5, 0), Stratum("b", 10, 0, 0)]).precision is None
    # An empty band needs no check.
    assert stratified([Stratum("a", 10, 5, 0), Stratum("b", 0, 0, 0)]).precision == 1.0
