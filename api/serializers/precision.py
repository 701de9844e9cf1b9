"""The resolver measured by its curators: per step and state, per probability band, overall."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from curation.resolution.precision import Estimate
from curation.resolution.selectors import PrecisionRow, ResolverPrecision

from .timestamps import timestamp

INTERVAL = (
    "95%: Wilson score intervals per row; the stratified estimate's interval is normal, with "
    "Agresti-Coull adjusted band variances and the finite-population correction"
)


def _row(row: PrecisionRow) -> dict[str, Any]:
    group = {("state" if k == "status" else k): v for k, v in row.group.items()}
    return {"why": row.why, **group, **row.estimate.as_dict()}


def precision_json(figures: ResolverPrecision) -> dict[str, Any]:
    """Return the figures as ResolverPrecisionSerializer describes them."""
    sample = figures.sample
    return {
        "overall": {
            "sampled_stratified": figures.sampled_stratified.as_dict(),
            "sampled_checked": figures.sampled_checked.as_dict(),
            "came_to_curators": figures.came_to_curators.as_dict(),
        },
        "by_step_state": [_row(r) for r in figures.by_step_state],
        "by_band": [_row(r) for r in figures.by_band],
        "sample": None if sample is None else {
            "id": sample.pk,
            "drawn_at": timestamp(sample.drawn_at),
            "seed": sample.seed,
            "per_band": sample.per_band,
            "strata": [
                {"band": s.band, "links": s.population, "checked": s.checked,
                 "overturned": s.overturned}
                for s in figures.strata
            ],
        },  # fmt: skip
        "interval": INTERVAL,
    }


class EstimateSerializer(serializers.Serializer[Estimate]):
    checked = serializers.IntegerField(help_text="Verdicts curators decided on")
    overturned = serializers.IntegerField(help_text="Relinked, unlinked or marked no match")
    precision = serializers.FloatField(allow_null=True, help_text="Share confirmed (null: none checked)")
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)


WHY = serializers.ChoiceField(
    choices=["sampled", "queue"],
    help_text="sampled: checked because drawn in a sample; queue: came to curators on its own",
)


class StepStateRowSerializer(EstimateSerializer):
    why = WHY
    step = serializers.CharField(help_text="The resolver step: identifier, title, string")
    state = serializers.CharField(help_text="The verdict's state, as the curator saw it")


class BandRowSerializer(EstimateSerializer):
    why = WHY
    band = serializers.CharField(help_text="Calibrated-probability band, or the step's own")


class OverallSerializer(serializers.Serializer[Any]):
    sampled_stratified = EstimateSerializer(help_text="Sampled bands weighted by their links")
    sampled_checked = EstimateSerializer(help_text="Every sampled check, unweighted")
    came_to_curators = EstimateSerializer(help_text="Verdicts that came to curators by failing")


class StratumSerializer(serializers.Serializer[Any]):
    band = serializers.CharField()
    links = serializers.IntegerField(help_text="Automatic links in the band when drawn")
    checked = serializers.IntegerField()
    overturned = serializers.IntegerField()


class SampleSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    drawn_at = serializers.DateTimeField()
    seed = serializers.CharField()
    per_band = serializers.IntegerField()
    strata = StratumSerializer(many=True)


class ResolverPrecisionSerializer(serializers.Serializer[Any]):
    """How often the resolver's verdicts are right, as curators judged them."""

    overall = OverallSerializer()
    by_step_state = StepStateRowSerializer(many=True)
    by_band = BandRowSerializer(many=True)
    sample = SampleSerializer(allow_null=True, help_text="The latest sample of automatic links")
    interval = serializers.CharField()
