"""Score the bibliography read from arXiv e-prints against the gold lists of arxiv-sources.

For each paper of gold.jsonl: gold and extracted key counts, exact (the same key list; for
`first-cite` gold also set equality), missing and extra keys, DOI and arXiv-id recall and
precision; then papers exact of all, identifier recall and precision, and median time.

    python bench/eval_sources.py [--data DIR] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from curation.references.latex_source import (  # noqa: E402 (after the path set-up)
    SourceArchiveError,
    bibliography_from_eprint,
)
from curation.references.listed import ListedReference  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/data/arxiv-sources"
KINDS = ("doi", "arxiv_id")


def _identifiers(pairs: list[tuple[str, str | None, str | None]]) -> set[tuple[str, str, str]]:
    """Return {(key, kind, value)} for the identifiers present."""
    out = set()
    for key, doi, arxiv_id in pairs:
        for kind, value in (("doi", doi), ("arxiv_id", arxiv_id)):
            if value:
                out.add((key, kind, value.lower()))  # DOIs are case-insensitive
    return out


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "n/a"


def score_paper(gold: dict, entries: list[ListedReference]) -> dict:
    """Return the per-paper comparison of extracted entries with the gold record."""
    gold_keys = [r["key"] for r in gold["references"]]
    keys = [e.key or "" for e in entries]
    same_list = keys == gold_keys
    same_set = set(keys) == set(gold_keys) and len(keys) == len(gold_keys)
    gold_ids = _identifiers([(r["key"], r["doi"], r["arxiv_id"]) for r in gold["references"]])
    found_ids = _identifiers([(e.key or "", e.doi, e.arxiv_id) for e in entries])
    hit = gold_ids & found_ids
    by_kind = {
        kind: (
            len({i for i in hit if i[1] == kind}),
            len({i for i in gold_ids if i[1] == kind}),
            len({i for i in found_ids if i[1] == kind}),
        )
        for kind in KINDS
    }
    return {
        "gold_n": len(gold_keys),
        "n": len(keys),
        "exact": same_list,
        "same_set": same_set,
        "missing": [k for k in gold_keys if k not in set(keys)],
        "extra": [k for k in keys if k not in set(gold_keys)],
        "hit": len(hit),
        "gold_ids": len(gold_ids),
        "found_ids": len(found_ids),
        "by_kind": by_kind,
        "wrong": sorted(found_ids - gold_ids),
        "lost": sorted(gold_ids - found_ids),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation and print per-paper lines and the overall figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the arxiv-sources folder")
    parser.add_argument("--verbose", action="store_true", help="list identifier differences")
    args = parser.parse_args(argv)
    golds = [
        json.loads(line) for line in (args.data / "gold.jsonl").read_text().splitlines() if line
    ]
    exact = hit = gold_ids = found_ids = 0
    times: list[float] = []
    for gold in golds:
        data = (args.data / gold["archive"]).read_bytes()
        started = time.perf_counter()
        try:
            bibliography = bibliography_from_eprint(data, name=gold["slug"])
            entries, method = bibliography.entries, bibliography.method
        except SourceArchiveError as exc:
            entries, method = [], f"refused: {exc}"
        times.append(time.perf_counter() - started)
        s = score_paper(gold, entries)
        # first-cite gold is the citation order, not the printed (sorted) one: the set must
        # match and the order must follow first citation, which is what the list is compared to.
        ok = s["exact"]
        exact += ok
        hit, gold_ids, found_ids = (
            hit + s["hit"],
            gold_ids + s["gold_ids"],
            found_ids + s["found_ids"],
        )
        doi, arx = s["by_kind"]["doi"], s["by_kind"]["arxiv_id"]
        order = gold["order"]
        print(
            f"{gold['slug'][:44]:44} {gold['kind']:12} {method:14} gold {s['gold_n']:3} got {s['n']:3} "
            f"exact {'yes' if ok else 'no '}"
            + (
                f" (set {'yes' if s['same_set'] else 'no'}, {order})"
                if order == "first-cite"
                else ""
            )
            + f"  doi R {_ratio(doi[0], doi[1])} P {_ratio(doi[0], doi[2])}"
            f"  arXiv R {_ratio(arx[0], arx[1])} P {_ratio(arx[0], arx[2])}"
        )
        if s["missing"] or s["extra"]:
            print(f"    missing {s['missing'][:10]} extra {s['extra'][:10]}")
        if args.verbose and (s["wrong"] or s["lost"]):
            print(f"    ids not in gold {s['wrong'][:6]}\n    gold ids not found {s['lost'][:6]}")
    print(f"papers exact: {exact} of {len(golds)}")
    print(
        f"identifiers: recall {_ratio(hit, gold_ids)} ({hit}/{gold_ids}), "
        f"precision {_ratio(hit, found_ids)} ({hit}/{found_ids})"
    )
    print(
        f"time per paper: median {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
