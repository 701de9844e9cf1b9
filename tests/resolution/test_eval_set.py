"""The resolver meets its targets on the labelled evaluation set."""

from __future__ import annotations

import pytest

from tests.resolution.evaluation import evaluate, load_catalogue

pytestmark = pytest.mark.django_db


def test_eval_set_meets_precision_and_recall_targets() -> None:
    load_catalogue()
    result = evaluate()
    assert result.total >= 300
    assert result.forbidden_verified == []
    assert result.precision >= 0.995, result.mistakes
    assert result.recall >= 0.97, result.mistakes
