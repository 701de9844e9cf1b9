"""Link precision/recall of the glutton-dev works written in every citation style (issue 25).

    python bench/eval_styles.py [--fold dev|held|both] [--styles acs,ieee,...] [--limit N]
                                [--mistakes FILE] [--check] [--processes N] [--ocr]

Each gold work of glutton-dev is rendered in fifteen CSL style rows (seven of them printing the
journal's full name, bench/journal_names.py) and five degradations (bench/style_render.py says
how, and where each field comes from); `--ocr` also scores every row with OCR noise
("<row>+ocr"); a local Crossref catalogue
(bench/style_catalogue.py: the gold works less the 15% left out, plus four look-alikes per
work) is imported through the product's import path into a throwaway test database, and every
string is resolved offline by the product's resolver, as bench/eval_real.py does.

A link is a verified_* verdict to a DOI. Per row: precision = correct links / links; recall =
correct links / references whose work IS in the catalogue. Wrong links are counted once, in the
first of: a link for a work left out of the catalogue (nothing was right), a link to a
look-alike, a link to another gold work. `flagged` counts metadata_mismatch verdicts.

Folds: held = `real_catalogue.held_aside(doi)` (sha1 % 5 == 0), never tuned on; dev the rest.
`--limit N` takes the same N works of a fold for every row (the first N by sha1 of the DOI).
Renderings are cached in bench/.data/style-render/ (the first full rendering takes minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ["CITEREC_OFFLINE"] = "1"

from real_catalogue import held_aside, load_glutton  # noqa: E402
from style_catalogue import NEGATIVE_PREFIX, catalogue_items, rendered  # noqa: E402
from style_render import (  # noqa: E402
    OCR_SUFFIX,
    ROWS,
    Work,
    gold_works,
    left_out,
    noisy_row,
    row_string,
    sha1_number,
)

VERIFIED = ("verified_exact", "verified_fuzzy")
TARGET_PRECISION = 0.995  # every row
TARGET_RECALL = 0.95  # overall
TARGET_ROW_RECALL = 0.90  # every row
BATCH = 200  # references per resolve_raw_batch call, as resolve_references does


@dataclass
class Row:
    """The figures of one style row (or of all rows together)."""

    name: str
    total: int = 0
    in_catalogue: int = 0
    links: int = 0
    correct: int = 0
    flagged: int = 0
    wrong: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def precision(self) -> float:
        """Return correct links / links."""
        return self.correct / self.links if self.links else 1.0

    @property
    def recall(self) -> float:
        """Return correct links / references whose work is in the catalogue."""
        return self.correct / self.in_catalogue if self.in_catalogue else 1.0

    def add(self, other: Row) -> None:
        """Add another row's counts to this one."""
        self.total += other.total
        self.in_catalogue += other.in_catalogue
        self.links += other.links
        self.correct += other.correct
        self.flagged += other.flagged
        self.wrong.update(other.wrong)
        self.seconds += other.seconds

    def line(self) -> str:
        """Return the row as a line of the table."""
        return (
            f"{self.name:<24} {self.total:>6} {self.in_catalogue:>6} {self.links:>6} "
            f"{self.correct:>6} {self.precision:>7.4f} {self.recall:>7.4f} "
            f"{self.wrong['look-alike']:>6} {self.wrong['other gold']:>6} "
            f"{self.wrong['left out']:>6} {self.flagged:>7}"
        )


HEADER = (
    f"{'style':<24} {'n':>6} {'in cat':>6} {'links':>6} {'right':>6} {'P':>7} {'R':>7} "
    f"{'w:look':>6} {'w:gold':>6} {'w:out':>6} {'flagged':>7}"
)


def resolve(items: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Resolve (id, string) pairs in batches, as resolve_references does."""
    from curation.resolution.verdicts import resolve_raw_batch

    verdicts: list[dict[str, Any]] = []
    for i in range(0, len(items), BATCH):
        verdicts.extend(resolve_raw_batch(items[i : i + BATCH]))
    return verdicts


def _evidence(evidence: dict[str, Any]) -> dict[str, Any]:
    """Return what a mistake's reader needs of the evidence: the decision and what matched."""
    wanted = ("step", "decision", "matched", "input")
    kept: dict[str, Any] = {k: evidence[k] for k in wanted if k in evidence}
    if "candidates" in evidence:
        kept["candidates"] = evidence["candidates"][:3]
    return kept


def score_row(fold: str, row: str, works: list[Work], strings: dict[str, dict[str, str]],
              mistakes: list[dict[str, Any]]) -> Row:  # fmt: skip
    """Resolve one row's strings and score the links against the gold DOIs."""
    started = time.perf_counter()
    texts = {w.doi: row_string(w, strings[w.doi], row) for w in works}
    verdicts = resolve([(f"{row}|{w.doi}", texts[w.doi]) for w in works])
    result = Row(row, total=len(works), seconds=time.perf_counter() - started)
    for work, verdict in zip(works, verdicts, strict=True):
        missing = left_out(work.doi)
        result.in_catalogue += not missing
        result.flagged += verdict["status"] == "metadata_mismatch"
        linked = (verdict["doi"] or "").lower() if verdict["status"] in VERIFIED else ""
        right = linked == work.doi
        if linked:
            result.links += 1
            result.correct += right
            if not right:
                kind = ("left out" if missing else "look-alike"
                        if linked.startswith(NEGATIVE_PREFIX) else "other gold")  # fmt: skip
                result.wrong[kind] += 1
        if (linked and not right) or (not missing and not right):
            mistakes.append({
                "fold": fold, "style": row, "string": texts[work.doi], "gold": work.doi,
                "linked": linked or None, "state": verdict["status"], "left_out": missing,
                "kind": "wrong link" if linked else "missed",
                "evidence": _evidence(verdict["evidence"]),
            })  # fmt: skip
    return result


def build_catalogue(refs: list[dict[str, Any]], works: list[Work], folder: Path) -> int:
    """Import the catalogue through the product's import path; return the works written."""
    from curation.resolution.services.catalogue_imports import import_crossref_works

    path = folder / "crossref.jsonl"
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for item in catalogue_items(refs, works):
            handle.write(json.dumps(item, ensure_ascii=False) + "\n")
            count += 1
    report = import_crossref_works(path=path)
    if report.bad_count:
        print(f"  {report.bad_count} catalogue lines refused: {report.bad[:3]}")
    return count


def sample(works: list[Work], limit: int) -> list[Work]:
    """Return the first `limit` works by sha1 of the DOI (all of them with no limit)."""
    ordered = sorted(works, key=lambda w: sha1_number("sample:", w.doi))
    return ordered[:limit] if limit else ordered


def missed_targets(rows: list[Row], overall: Row) -> list[str]:
    """Return the targets of issue 25 the figures miss."""
    missed = [f"{r.name}: precision {r.precision:.4f} < {TARGET_PRECISION}"
              for r in rows if r.precision < TARGET_PRECISION]  # fmt: skip
    missed += [f"{r.name}: recall {r.recall:.4f} < {TARGET_ROW_RECALL}"
               for r in rows if r.recall < TARGET_ROW_RECALL]  # fmt: skip
    if overall.recall < TARGET_RECALL:
        missed.append(f"overall recall {overall.recall:.4f} < {TARGET_RECALL}")
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fold", choices=("dev", "held", "both"), default="dev")
    parser.add_argument("--styles", default=",".join(ROWS), help="comma-separated style rows")
    parser.add_argument("--limit", type=int, default=0, help="works per row (default: all)")
    parser.add_argument("--mistakes", type=Path, help="write wrong and missed links here (JSONL)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--processes", type=int, default=0, help="rendering processes")
    parser.add_argument("--ocr", action="store_true",
                        help=f"also score every row with OCR noise (row{OCR_SUFFIX})")  # fmt: skip
    args = parser.parse_args()
    rows = [r.strip() for r in args.styles.split(",") if r.strip()]
    if args.ocr:
        rows += [f"{r}{OCR_SUFFIX}" for r in rows if noisy_row(r) is None and r != "ocr-noise"]
    if unknown := [r for r in rows if (noisy_row(r) or r) not in ROWS]:
        parser.error(f"unknown style rows {unknown}; known: {', '.join(ROWS)}")

    started = time.perf_counter()
    refs = load_glutton()
    works = gold_works(refs)
    folds = {"dev": [w for w in works if not held_aside(w.doi)],
             "held": [w for w in works if held_aside(w.doi)]}  # fmt: skip
    wanted = ["dev", "held"] if args.fold == "both" else [args.fold]
    chosen = {fold: sample(folds[fold], args.limit) for fold in wanted}
    strings = rendered([w for fold in wanted for w in chosen[fold]], args.processes)

    import django

    django.setup()
    from django.db import connection

    mistakes: list[dict[str, Any]] = []
    tables: list[tuple[str, list[Row], Row]] = []
    name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            clock = time.perf_counter()
            size = build_catalogue(refs, works, Path(tmp))
            print(f"catalogue: {size:,} Crossref works imported "
                  f"({time.perf_counter() - clock:.0f}s)")  # fmt: skip
        for fold in wanted:
            scored = [score_row(fold, row, chosen[fold], strings, mistakes) for row in rows]
            overall = Row("overall")
            for row in scored:
                overall.add(row)
            tables.append((fold, scored, overall))
    finally:
        connection.close()
        connection.creation.destroy_test_db(name, verbosity=0)

    missed: list[str] = []
    for fold, scored, overall in tables:
        print(f"\n{fold} fold: {len(chosen[fold]):,} works per row "
              f"({sum(left_out(w.doi) for w in chosen[fold])} left out of the catalogue)")  # fmt: skip
        print(HEADER)
        for row in [*scored, overall]:
            print(row.line())
        rate = overall.total / overall.seconds if overall.seconds else 0.0
        print(f"resolved {overall.total:,} references in {overall.seconds:.0f}s "
              f"({rate:,.0f} refs/s)")  # fmt: skip
        missed += [f"{fold}: {m}" for m in missed_targets(scored, overall)]
    print(f"targets: P >= {TARGET_PRECISION} every row, R >= {TARGET_ROW_RECALL} every row, "
          f"R >= {TARGET_RECALL} overall; wall time {time.perf_counter() - started:.0f}s")  # fmt: skip
    for miss in missed:
        print(f"  missed: {miss}")
    if args.mistakes:
        with args.mistakes.open("w", encoding="utf-8") as handle:
            for mistake in mistakes:
                handle.write(json.dumps(mistake, ensure_ascii=False) + "\n")
        print(f"{len(mistakes)} wrong and missed links written to {args.mistakes}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
