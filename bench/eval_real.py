"""Link precision/recall on real references (glutton-dev PMC strings, physics journal citations).

    python bench/eval_real.py [--fold dev|held|both] [--mistakes FILE] [--limit N]

glutton-dev: a local Crossref catalogue is built through the product's import path from the
gold metadata (one work per DOI) plus four hard negatives per work (bench/real_catalogue.py);
every raw string is resolved offline by the product's resolver. A link is a verified_* verdict
to a DOI: precision = correct links / links, recall = correct links / references. The
held-aside fold (sha1(id) % 5 == 0) is reported separately and is not used for tuning.

Physics: journal-only citations of the GROBID corpus ("Phys. Rev. D 76, 056001 (2007)") against
an arXiv catalogue whose journal-refs hold them, plus a negative per citation on the same journal
and volume with another page.

Runs against a throwaway test database (DATABASE_URL's server, or the embedded one).
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

VERIFIED = ("verified_exact", "verified_fuzzy")
NEGATIVE_PREFIX = "10.9999/neg."  # the DOIs bench/real_catalogue.py gives its look-alikes


@dataclass
class Score:
    """Link figures of one set of references."""

    name: str
    total: int = 0
    links: int = 0
    correct: int = 0
    states: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    to_negative: int = 0  # wrong links to a generated look-alike (the rest go to another gold work)
    # References whose very string carries two or more gold DOIs in the set (at most one can be
    # right): figures without them are printed too.
    conflicting: int = 0
    conflicting_links: int = 0
    conflicting_correct: int = 0

    @property
    def precision(self) -> float:
        """Return correct links / links."""
        return self.correct / self.links if self.links else 1.0

    @property
    def recall(self) -> float:
        """Return correct links / references."""
        return self.correct / self.total if self.total else 1.0

    def report(self) -> str:
        """Return the figures and the state table as text."""
        rate = self.total / self.seconds if self.seconds else 0.0
        lines = [
            f"{self.name}: {self.total:,} references, {self.links:,} links, {self.correct:,} correct"
            f"  ({rate:,.0f} refs/s)",
            f"  precision {self.precision:.4f} (target >= 0.995)   recall {self.recall:.4f}"
            " (target >= 0.97)",
            "  state                  count",
        ]
        for state in ("verified_exact", "verified_fuzzy", "metadata_mismatch", "unresolved",
                      "malformed_identifier", "parse_uncertain"):  # fmt: skip
            lines.append(f"  {state:<22} {self.states[state]:>6}")
        lines.append(f"  {'  of which wrong link':<22} {self.links - self.correct:>6}")
        lines.append(f"  {'    to a generated negative':<22} {self.to_negative:>4}")
        if self.conflicting:
            links = self.links - self.conflicting_links
            correct = self.correct - self.conflicting_correct
            total = self.total - self.conflicting
            lines.append(
                f"  without the {self.conflicting} references whose string has conflicting gold "
                f"DOIs: precision {correct / links if links else 1:.4f}   recall "
                f"{correct / total if total else 1:.4f}"
            )
        return "\n".join(lines)


def resolve(items: list[tuple[str, str]]) -> tuple[list[dict[str, Any]], float]:
    """Resolve (id, raw) pairs in batches as resolve_references does; return verdicts, seconds."""
    from curation.resolution.verdicts import resolve_raw_batch

    started = time.perf_counter()
    verdicts: list[dict[str, Any]] = []
    for i in range(0, len(items), 200):
        verdicts.extend(resolve_raw_batch(items[i : i + 200]))
    return verdicts, time.perf_counter() - started


def score(name: str, rows: list[dict[str, Any]], want: str, got: str,
          mistakes: list[dict[str, Any]]) -> Score:  # fmt: skip
    """Resolve rows (with "id", "raw" and the wanted identifier under `want`) and score them."""
    verdicts, seconds = resolve([(r["id"], r["raw"]) for r in rows])
    result = Score(name, total=len(rows), seconds=seconds)
    for row, verdict in zip(rows, verdicts, strict=True):
        result.states[verdict["status"]] += 1
        linked = verdict[got] if verdict["status"] in VERIFIED else None
        if verdict["status"] in VERIFIED:
            result.links += 1
            right = (linked or "").lower() == row[want].lower()
            result.correct += right
            result.to_negative += not right and (linked or "").startswith(NEGATIVE_PREFIX)
            result.conflicting_links += row.get("conflicting", False)
            result.conflicting_correct += right and row.get("conflicting", False)
        result.conflicting += row.get("conflicting", False)
        if (linked or "").lower() != row[want].lower():
            mistakes.append({"set": name, "id": row["id"], "raw": row["raw"], "want": row[want],
                             "status": verdict["status"], "linked": linked,
                             "evidence": verdict["evidence"]})  # fmt: skip
    return result


def build_glutton(refs: list[dict[str, Any]], folder: Path) -> int:
    """Import the glutton-dev Crossref catalogue (gold works and negatives); return its size."""
    from real_catalogue import glutton_works

    from curation.resolution.services.catalogue_imports import import_crossref_works

    path = folder / "crossref.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        count = 0
        for work in glutton_works(refs):
            handle.write(json.dumps(work) + "\n")
            count += 1
    report = import_crossref_works(path=path)
    if report.bad_count:
        print(f"  {report.bad_count} catalogue lines refused: {report.bad[:3]}")
    return count


def build_physics(folder: Path) -> list[dict[str, Any]]:
    """Import the physics arXiv catalogue; return the citations with the arXiv id they name."""
    from real_catalogue import physics_citations, physics_snapshot

    from curation.audit import Actor
    from curation.resolution.services.catalogue_imports import import_arxiv_snapshot

    citations = {c.key: c for c in physics_citations()}
    path = folder / "arxiv.jsonl"
    wanted: dict[str, str] = {}
    with path.open("w", encoding="utf-8") as handle:
        for item, keys in physics_snapshot(list(citations.values())):
            handle.write(json.dumps(item) + "\n")
            wanted.update((key, item["id"]) for key in keys)
    import_arxiv_snapshot(path=path, actor=Actor.importer("eval"), reason="eval-real physics")
    return [{"id": key, "raw": citations[key].raw, "arxiv_id": arxiv_id}
            for key, arxiv_id in wanted.items()]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fold", choices=("dev", "held", "both"), default="both")
    parser.add_argument("--mistakes", type=Path, help="write the misses and wrong links here")
    parser.add_argument("--limit", type=int, default=0, help="resolve only the first N of a fold")
    parser.add_argument(
        "--sets", default="glutton,physics", help="comma-separated: glutton, physics"
    )
    args = parser.parse_args()

    import django

    django.setup()
    from django.db import connection
    from real_catalogue import held_aside, load_glutton

    refs = load_glutton()
    labels: dict[str, set[str]] = {}
    for r in refs:
        labels.setdefault(r["raw_string"], set()).add(r["doi"].lower())
    rows = [{"id": r["id"], "raw": r["raw_string"], "doi": r["doi"], "held": held_aside(r["id"]),
             "conflicting": len(labels[r["raw_string"]]) > 1} for r in refs]  # fmt: skip
    folds = {"dev": [r for r in rows if not r["held"]], "held": [r for r in rows if r["held"]]}
    wanted = ["dev", "held"] if args.fold == "both" else [args.fold]
    mistakes: list[dict[str, Any]] = []
    name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            results = []
            if "glutton" in args.sets:
                started = time.perf_counter()
                size = build_glutton(refs, Path(tmp))
                print(f"glutton-dev catalogue: {size:,} Crossref works imported "
                      f"({time.perf_counter() - started:.0f}s)")  # fmt: skip
                for fold in wanted:
                    chosen = folds[fold][: args.limit] if args.limit else folds[fold]
                    results.append(score(f"glutton-dev {fold}", chosen, "doi", "doi", mistakes))
            physics = build_physics(Path(tmp)) if "physics" in args.sets else []
            for fold in wanted if physics else []:
                chosen = [p for p in physics if held_aside(p["id"]) == (fold == "held")]
                results.append(score(f"physics journal refs {fold}", chosen, "arxiv_id",
                                     "arxiv_id", mistakes))  # fmt: skip
    finally:
        connection.close()
        connection.creation.destroy_test_db(name, verbosity=0)
    for result in results:
        print(result.report())
    if args.mistakes:
        with args.mistakes.open("w", encoding="utf-8") as handle:
            for mistake in mistakes:
                handle.write(json.dumps(mistake, ensure_ascii=False) + "\n")
        print(f"{len(mistakes)} misses and wrong links written to {args.mistakes}")


if __name__ == "__main__":
    main()
