"""How often the resolver's links are right, as its curators judged them: bands of calibrated
probability, Wilson intervals, and the stratified estimate over a sample of automatic links.

Pure arithmetic on counts (no database): the counts are read by
curation.resolution.selectors.resolver_precision, written by
curation.resolution.services.labels.

Why two estimates: the references that come to curators are mostly the ones the resolver
struggled with (a low probability, a mismatch, a candidate to accept), so the share they
overturn says little about the links nobody looked at. A sample of automatic links drawn per
band, each band weighted by how many links it holds, does (the stratified estimator).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Band edges of the calibrated probability (evidence.matched.probability, step "string").
# Finer at the top, where nearly every link sits and where a high-precision bar would be set.
EDGES = (0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 1.0)
Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def band_of(step: str | None, probability: float | None) -> str:
    """Return the band a verdict belongs to: its probability's, or its step's when the step
    gives none (an identifier or a title-only match carries no calibrated probability)."""
    if probability is None:
        return f"no probability ({step or 'no step'})"
    p = min(max(float(probability), 0.0), 1.0)
    for low, high in zip(EDGES, EDGES[1:], strict=False):
        if p < high or high == EDGES[-1]:
            return f"{low:.2f}–{high:.2f}"
    raise AssertionError("unreachable: the last band takes 1.0")


def band_order(band: str) -> tuple[int, str]:
    """Return a sort key: probability bands low to high, then the steps without one."""
    return (0, band) if band[:1].isdigit() else (1, band)


@dataclass(frozen=True)
class Estimate:
    """A share of links found right, with its 95% interval (None when nothing was checked)."""

    checked: int
    overturned: int
    precision: float | None
    low: float | None
    high: float | None

    def as_dict(self) -> dict[str, int | float | None]:
        """Return the estimate as the API and the page show it (four decimals)."""
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {"checked": self.checked, "overturned": self.overturned,
                "precision": r(self.precision), "low": r(self.low), "high": r(self.high)}  # fmt: skip


def wilson(checked: int, overturned: int, z: float = Z95) -> Estimate:
    """Return the share confirmed of `checked` links with its Wilson score interval.

    Wilson, not the normal approximation: curators check few links per band, and most are
    right, where the normal interval collapses to a point at 100% and can leave [0, 1].
    """
    if checked < 0 or overturned < 0 or overturned > checked:
        raise ValueError(f"{overturned} overturned of {checked} checked")
    if checked == 0:
        return Estimate(0, 0, None, None, None)
    n = float(checked)
    p = (checked - overturned) / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Estimate(checked, overturned, p, max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Stratum:
    """One band of a sample: the automatic links it held when drawn, and what was checked."""

    band: str
    population: int
    checked: int
    overturned: int


def stratified(strata: Iterable[Stratum], z: float = Z95) -> Estimate:
    """Return the precision of all automatic links, each band's checked share weighted by the
    links it holds (the stratified estimator), with a 95% interval.

    A band nobody checked yet cannot be estimated: while one holds links, the estimate is None
    (a figure that silently left out a band would claim more than was measured). Each band's
    variance uses the Agresti-Coull adjusted share, (confirmed + z²/2) / (checked + z²), so a
    band where every checked link was right still adds its uncertainty; the finite-population
    correction applies when a band was checked whole.
    """
    rows = [s for s in strata if s.population > 0]
    total = sum(s.population for s in rows)
    checked = sum(s.checked for s in rows)
    overturned = sum(s.overturned for s in rows)
    if total == 0 or any(s.checked == 0 for s in rows):
        return Estimate(checked, overturned, None, None, None)
    estimate = variance = 0.0
    for s in rows:
        weight = s.population / total
        share = (s.checked - s.overturned) / s.checked
        adjusted = (s.checked - s.overturned + z * z / 2) / (s.checked + z * z)
        correction = max(0.0, 1 - s.checked / s.population) if s.population >= s.checked else 0.0
        estimate += weight * share
        variance += weight * weight * adjusted * (1 - adjusted) / (s.checked + z * z) * correction
    half = z * math.sqrt(variance)
    return Estimate(checked, overturned, estimate, max(0.0, estimate - half), min(1.0, estimate + half))


def strata_from(populations: Mapping[str, int], counts: Mapping[str, tuple[int, int]]) -> list[Stratum]:
    """Return the strata of a sample: each band's population with its (checked, overturned)."""
    return [
        Stratum(band, int(n), *counts.get(band, (0, 0)))
        for band, n in sorted(populations.items(), key=lambda kv: band_order(kv[0]))
    ]
