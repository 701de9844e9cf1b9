"""`bench/calibrate.py --from-labels` refits the link probability from curator labels in the
database DATABASE_URL names, and prints the reliability table (issue 41 item 3)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from curation.resolution.calibration import FEATURES
from curation.resolution.models import LabelOutcome, LabelWhy, VerdictLabel
from tests.conftest import database_url
from tests.resolution.verdicts_data import verdict

pytestmark = pytest.mark.django_db(transaction=True)  # the script reads what is committed
ROOT = Path(__file__).resolve().parents[2]


def labels(count: int) -> None:
    """Store `count` labels: a link with its first page found is right, one without is wrong
    one time in three."""
    o = verdict(1)
    for n in range(count):
        page = n % 2 == 0
        features = [1.0] * len(FEATURES)
        features[FEATURES.index("first_page")] = float(page)
        right = page or n % 3 != 1
        VerdictLabel.objects.create(
            observation=o, step="string", status="verified_fuzzy", probability=0.9,
            band="0.90–0.95", features=features,
            outcome=LabelOutcome.CONFIRMED if right else LabelOutcome.RELINKED,
            why=LabelWhy.SAMPLED if n % 4 == 0 else LabelWhy.QUEUE, action="link_arxiv",
            actor="user:alice", decided_at=datetime(2026, 12, 1, tzinfo=UTC), revision=2,
        )  # fmt: skip


def calibrate(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": database_url(), "DJANGO_SETTINGS_MODULE": "tests.settings"}
    return subprocess.run(
        [sys.executable, "bench/calibrate.py", "--from-labels", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_refits_from_labels_and_prints_the_reliability_table() -> None:
    labels(60)
    done = calibrate()
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "curator labels, shipped weights: 60 links, 50 right" in out
    assert "sampled labels only, shipped weights: 15 links" in out
    assert "curator labels, refit (fitted on): 60 links" in out
    assert "predicted" in out and "bar 0.9" in out
    # The refit learns that a first page found makes a link more likely right.
    line = next(x for x in out.splitlines() if x.strip().startswith("first_page"))
    assert float(line.split("->")[1]) > 0
    assert "written to" not in out  # only --write stores the weights


def test_too_few_labels_are_refused_with_why() -> None:
    labels(5)
    done = calibrate()
    assert done.returncode == 1
    assert "5 labelled whole-string links" in done.stderr and "at least 20" in done.stderr
