"""Fit the link probability (curation/resolution/calibration.py) and measure how well it holds.

    python bench/calibrate.py [--limit N] [--write]
    DATABASE_URL=... python bench/calibrate.py --from-labels [--write]

Development data: the glutton-dev works rendered in every style row of bench/eval_styles.py,
dev fold only (held_aside(doi) false), resolved offline against the same catalogue. Every
whole-string link (evidence step "string") is one example: its features
(calibration.features) and whether it is right. A logistic regression (Newton's method, a small
L2 penalty) is fitted on them; `--write` stores the weights in calibration.json.

Then the held-aside fold (never fitted on) is resolved and the reliability table printed: per
band of predicted probability, the links in it and the share right; plus the Brier score, and
what a high-precision bar (CITEREC_MIN_LINK_PROBABILITY) would keep of the links and their
precision.

`--from-labels` refits from curators' labels instead (issue 41): every curator decision on a
whole-string link stored its features (curation.resolution.models.VerdictLabel), and
"confirmed" is a right link, anything else a wrong one. The labels are read from the database
DATABASE_URL names (read only), the shipped weights and the refit are each shown on them in the
reliability table, and `--write` stores the refit. Labels that came to curators by failing are
not a random sample of links, but a logistic fit is conditional on the features, so choosing
links by their features biases it far less than it biases a plain share; the table shows the
sampled labels apart.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import eval_styles  # sets the import paths and Django settings  # noqa: I001
from real_catalogue import held_aside, load_glutton
from style_render import ROWS, gold_works

PENALTY = 1.0  # L2 on every weight but the bias: keeps rare features from running away
BANDS = (0.0, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 1.0001)
BARS = (0.5, 0.9, 0.95, 0.99, 0.995)


def examples(fold: str, works: list[Any], strings: dict[str, dict[str, str]],
             rows: list[str]) -> list[tuple[list[float], int, str]]:  # fmt: skip
    """Return (features, right, row) for every whole-string link of the fold's strings."""
    from curation.resolution.calibration import features

    found = []
    for row in rows:
        items = [(f"{row}|{w.doi}", strings[w.doi][row]) for w in works]
        for work, verdict in zip(works, eval_styles.resolve(items), strict=True):
            evidence = verdict["evidence"]
            if verdict["status"] not in eval_styles.VERIFIED or evidence.get("step") != "string":
                continue
            right = int((verdict["doi"] or "").lower() == work.doi)
            found.append((features(evidence["matched"], evidence["candidates"]), right, row))
    return found


def fit(data: list[tuple[list[float], int, str]], rounds: int = 25) -> list[float]:
    """Return logistic-regression weights by Newton's method with an L2 penalty."""
    size = len(data[0][0])
    w = [0.0] * size
    for _ in range(rounds):
        grad = [0.0] * size
        hess = [[0.0] * size for _ in range(size)]
        for x, y, _row in data:
            z = sum(a * b for a, b in zip(w, x, strict=True))
            p = 1.0 / (1.0 + math.exp(-max(min(z, 35.0), -35.0)))
            for i in range(size):
                if x[i]:
                    grad[i] += (p - y) * x[i]
                    weight = p * (1 - p) * x[i]
                    for j in range(size):
                        if x[j]:
                            hess[i][j] += weight * x[j]
        for i in range(1, size):
            grad[i] += PENALTY * w[i]
            hess[i][i] += PENALTY
        hess[0][0] += 1e-6
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return w


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Return x with matrix @ x = vector (Gauss-Jordan with partial pivoting)."""
    n = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[r][col]:
                factor = a[r][col] / a[col][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] / a[i][i] for i in range(n)]


def report(data: list[tuple[list[float], int, str]], w: list[float], title: str) -> None:
    """Print the reliability table, the Brier score and what each high-precision bar keeps."""
    from curation.resolution.calibration import probability_of

    scored = [(probability_of(x, w), y, row) for x, y, row in data]
    brier = sum((p - y) ** 2 for p, y, _ in scored) / len(scored)
    print(f"\n{title}: {len(scored):,} links, {sum(y for _, y, _ in scored):,} right, "
          f"Brier {brier:.5f}")  # fmt: skip
    print(f"  {'predicted':<16} {'links':>7} {'mean p':>8} {'right':>8}")
    for low, high in zip(BANDS, BANDS[1:], strict=False):
        band = [(p, y) for p, y, _ in scored if low <= p < high]
        if band:
            print(f"  [{low:.3f}, {min(high, 1):.3f}) {len(band):>7} "
                  f"{sum(p for p, _ in band) / len(band):>8.4f} "
                  f"{sum(y for _, y in band) / len(band):>8.4f}")  # fmt: skip
    for bar in BARS:
        kept = [y for p, y, _ in scored if p >= bar]
        precision = sum(kept) / len(kept) if kept else 1.0
        print(f"  bar {bar:<6} keeps {len(kept) / len(scored):.4f} of links, precision "
              f"{precision:.4f}")  # fmt: skip


MIN_LABELS = 20  # fewer than this fits noise, whatever the penalty


def label_examples() -> list[tuple[list[float], int, str]]:
    """Return (features, right, how it came) for every curator label of a whole-string link."""
    from curation.resolution.selectors import verdict_labels_for_fitting

    return [
        ([float(x) for x in features], int(outcome == "confirmed"), why)
        for features, outcome, why, _probability in verdict_labels_for_fitting()
    ]


def from_labels(write: bool) -> int:
    """Refit the weights on curator labels; print both fits' reliability on them."""
    import django

    django.setup()
    from curation.resolution.calibration import FEATURES, WEIGHTS, weights

    data = label_examples()
    right = sum(y for _, y, _ in data)
    if len(data) < MIN_LABELS or right in (0, len(data)):
        print(f"{len(data)} labelled whole-string links, {right} confirmed: a refit needs at least "
              f"{MIN_LABELS}, with both right and wrong links", file=sys.stderr)  # fmt: skip
        return 1
    if any(len(x) != len(FEATURES) for x, _, _ in data):
        print(f"labels carry features of another length than {len(FEATURES)}: written by "
              "another calibration version", file=sys.stderr)  # fmt: skip
        return 1
    shipped = list(weights())
    report(data, shipped, "curator labels, shipped weights")
    sampled = [d for d in data if d[2] == "sampled"]
    if sampled:
        report(sampled, shipped, "sampled labels only, shipped weights")
    w = fit(data)
    report(data, w, "curator labels, refit (fitted on)")
    print("\nweights (shipped -> refit):")
    for feature, old, new in zip(FEATURES, shipped, w, strict=True):
        print(f"  {feature:<18} {old:+.3f} -> {new:+.3f}")
    if write:
        WEIGHTS.write_text(json.dumps({
            "features": list(FEATURES),
            "weights": [round(x, 4) for x in w],
            "fitted_on": f"bench/calibrate.py --from-labels: {len(data):,} curator labels of "
                         f"whole-string links ({len(sampled):,} sampled, {right:,} confirmed)",
            "fitted": dt.date.today().isoformat(),
        }, indent=2) + "\n", encoding="utf-8")  # fmt: skip
        print(f"written to {WEIGHTS}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=1500, help="works per fold and row")
    parser.add_argument("--write", action="store_true", help="store the weights")
    parser.add_argument("--from-labels", action="store_true",
                        help="refit from curator labels in the database DATABASE_URL names")  # fmt: skip
    args = parser.parse_args()
    if args.from_labels:
        return from_labels(args.write)
    started = time.perf_counter()
    refs = load_glutton()
    works = gold_works(refs)
    dev = eval_styles.sample([w for w in works if not held_aside(w.doi)], args.limit)
    held = eval_styles.sample([w for w in works if held_aside(w.doi)], args.limit)
    strings = eval_styles.rendered(dev + held, 0)
    rows = list(ROWS)

    import django

    django.setup()
    from django.db import connection

    from curation.resolution.calibration import FEATURES, WEIGHTS

    name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            eval_styles.build_catalogue(refs, works, Path(tmp))
        train = examples("dev", dev, strings, rows)
        w = fit(train)
        report(train, w, "dev fold (fitted on)")
        report(examples("held", held, strings, rows), w, "held-aside fold (never fitted on)")
    finally:
        connection.close()
        connection.creation.destroy_test_db(name, verbosity=0)
    print("\nweights:")
    for feature, weight in zip(FEATURES, w, strict=True):
        print(f"  {feature:<18} {weight:+.3f}")
    if args.write:
        WEIGHTS.write_text(json.dumps({
            "features": list(FEATURES),
            "weights": [round(x, 4) for x in w],
            "fitted_on": f"bench/calibrate.py --limit {args.limit}: glutton-dev works, dev fold, "
                         f"rows {', '.join(rows)}; {len(train):,} whole-string links",
            "fitted": dt.date.today().isoformat(),
        }, indent=2) + "\n", encoding="utf-8")  # fmt: skip
        print(f"written to {WEIGHTS}")
    print(f"wall time {time.perf_counter() - started:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
