"""Print field-level precision, recall and F1 of the reference parser over the labelled set.

Usage: python bench/eval_parse.py [--set labelled|holdout] [--show FIELD] [--check]
  --set         labelled (default, >=300 strings) or holdout (46 strings written after the
                parser, to check the figures on text it was not built against)
  --show FIELD  list the disagreements for title, first_author, year, identifiers or usable
  --check       exit 1 when a target (identifier P=1.00, R>=0.99, title F1>=0.93, flags) is missed
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from curation.references import ParsedReference, normalize_title, parse_reference  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "tests/references/fixtures"
SETS = {"labelled": "labelled_references.jsonl", "holdout": "holdout_references.jsonl"}
FIELDS = ("title", "first_author", "year", "identifiers")


def _ids(ref: ParsedReference) -> set[str]:
    ids = ref.identifiers
    return (
        {f"arxiv:{a.id}" for a in ids.arxiv}
        | {f"doi:{d.value}" for d in ids.dois}
        | {f"github:{g}" for g in ids.github}
    )


def _expected_ids(row: dict) -> set[str]:
    e = row["identifiers"]
    return (
        {f"arxiv:{a}" for a in e["arxiv"]}
        | {f"doi:{d.lower()}" for d in e["doi"]}
        | {f"github:{g.lower()}" for g in e["github"]}
    )


def _norm(value: object) -> object:
    return normalize_title(value) if isinstance(value, str) else value


def score(rows: list[dict]) -> tuple[dict[str, Counter], list[tuple[str, dict, object, object]]]:
    """Return TP/FP/FN counters per field and the list of disagreements."""
    counts = {f: Counter() for f in FIELDS}
    misses: list[tuple[str, dict, object, object]] = []
    for row in rows:
        ref = parse_reference(row["raw"])
        got = {"title": ref.title, "first_author": ref.first_author_surname, "year": ref.year}
        for f in ("title", "first_author", "year"):
            exp, pred = _norm(row[f]), _norm(got[f])
            if exp is not None and pred == exp:
                counts[f]["tp"] += 1
                continue
            if pred is not None:
                counts[f]["fp"] += 1
            if exp is not None:
                counts[f]["fn"] += 1
            if exp != pred:
                misses.append((f, row, row[f], got[f]))
        exp_ids, got_ids = _expected_ids(row), _ids(ref)
        counts["identifiers"]["tp"] += len(exp_ids & got_ids)
        counts["identifiers"]["fp"] += len(got_ids - exp_ids)
        counts["identifiers"]["fn"] += len(exp_ids - got_ids)
        if exp_ids != got_ids:
            misses.append(("identifiers", row, sorted(exp_ids), sorted(got_ids)))
        if row["title_usable"] != ref.title_usable:
            misses.append(
                ("usable", row, row["title_usable"], (ref.title_usable, ref.title_problem))
            )
    return counts, misses


def prf(c: Counter) -> tuple[float, float, float]:
    """Return precision, recall and F1 from TP/FP/FN counts."""
    p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0
    r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=tuple(SETS), default="labelled")
    parser.add_argument("--show", choices=(*FIELDS, "usable"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    path = FIXTURES / SETS[args.set]
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    counts, misses = score(rows)
    print(f"{args.set} references: {len(rows)} ({path.name})")
    print(f"{'field':<14}{'precision':>10}{'recall':>10}{'F1':>8}{'TP':>6}{'FP':>5}{'FN':>5}")
    figures = {}
    for f in FIELDS:
        p, r, f1 = prf(counts[f])
        figures[f] = (p, r, f1)
        c = counts[f]
        print(f"{f:<14}{p:>10.3f}{r:>10.3f}{f1:>8.3f}{c['tp']:>6}{c['fp']:>5}{c['fn']:>5}")
    usable_ok = sum(1 for m in misses if m[0] == "usable")
    print(f"title_usable agreement: {len(rows) - usable_ok}/{len(rows)}")
    flagged = Counter()
    flag_total = Counter()
    for row in rows:
        if row["flag"]:
            flag_total[row["flag"]] += 1
            if not parse_reference(row["raw"]).title_usable:
                flagged[row["flag"]] += 1
    for flag in sorted(flag_total):
        print(f"flagged {flag:<16}{flagged[flag]:>4}/{flag_total[flag]}")
    if args.show:
        for field, row, exp, got in misses:
            if field == args.show:
                print(f"\n#{row['id']} {row['raw'][:160]}\n   expected: {exp}\n   got:      {got}")
    if args.check:
        p, r, _ = figures["identifiers"]
        ok = p >= 1.0 and r >= 0.99 and figures["title"][2] >= 0.93
        ok = ok and all(flagged[f] == flag_total[f] for f in flag_total)
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
