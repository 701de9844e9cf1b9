"""Dump the full parse of every distinct reference string, or check a dump is reproduced exactly.

Usage: python bench/parse_golden.py OUT.jsonl           write the dump
       python bench/parse_golden.py --check OLD.jsonl   parse again, compare, exit 1 on a difference

The safety net for work on the parser that must not change its output (speed work): every
field of `ParsedReference` (dataclasses.asdict, repairs, identifiers and warnings included) and
its derived properties, for the distinct strings of
- the labelled and holdout fixtures (tests/references/fixtures),
- the GROBID citation corpus (read as bench/eval_corpus.py reads it),
- the glutton-dev raw strings (read as bench/eval_real.py reads them),
- and, so that case- and truncation-dependent paths are covered too, each of those strings
  lower-cased, upper-cased and cut to its first half.
One JSON object a line, keys sorted, in a fixed order: two dumps of the same parser are
byte-identical.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))

from eval_corpus import DEFAULT_CORPUS, load_corpus  # noqa: E402
from real_catalogue import load_glutton  # noqa: E402

from curation.references import parse_reference  # noqa: E402

FIXTURES = BENCH.parent / "tests/references/fixtures"
SHOWN_DIFFS = 10


def _fixture_strings() -> Iterator[str]:
    for name in ("labelled_references.jsonl", "holdout_references.jsonl"):
        for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield json.loads(line)["raw"]


def real_strings() -> list[str]:
    """Return the distinct real reference strings: GROBID corpus, then glutton-dev."""
    seen: dict[str, None] = {}
    for example in load_corpus(DEFAULT_CORPUS):
        seen.setdefault(example.raw, None)
    for ref in load_glutton():
        seen.setdefault(ref["raw_string"], None)
    return list(seen)


def golden_strings() -> list[tuple[str, str]]:
    """Return (source, raw) for every distinct string, first source wins, in a fixed order."""
    seen: dict[str, str] = {}
    for raw in _fixture_strings():
        seen.setdefault(raw, "fixtures")
    for raw in real_strings():
        seen.setdefault(raw, "real")
    for raw in list(seen):
        for variant, source in (
            (raw.lower(), "lower"),
            (raw.upper(), "upper"),
            (raw[: len(raw) // 2], "half"),
        ):
            seen.setdefault(variant, source)
    return [(source, raw) for raw, source in seen.items()]


def dump_line(source: str, raw: str) -> str:
    """Return the JSON line of one string's full parse."""
    ref = parse_reference(raw)
    parsed: dict[str, Any] = dataclasses.asdict(ref)
    parsed["normalized"] = ref.normalized
    parsed["parse_uncertain"] = ref.parse_uncertain
    parsed["first_author_surname"] = ref.first_author_surname
    return json.dumps({"source": source, "raw": raw, "parse": parsed}, sort_keys=True,
                      ensure_ascii=False)  # fmt: skip


def _show(old: str, new: str) -> str:
    before, after = json.loads(old)["parse"], json.loads(new)["parse"]
    fields = [
        f"    {k}: {before.get(k)!r} -> {after.get(k)!r}"
        for k in sorted(set(before) | set(after))
        if before.get(k) != after.get(k)
    ]
    return f"  {json.loads(old)['raw'][:160]!r}\n" + "\n".join(fields)


def check(path: Path, lines: list[str]) -> int:
    """Compare fresh lines with a dump; print the differences; return the exit status."""
    old = path.read_text(encoding="utf-8").splitlines()
    old_by_raw = {json.loads(line)["raw"]: line for line in old}
    differing = []
    for line in lines:
        raw = json.loads(line)["raw"]
        if old_by_raw.get(raw) != line:
            differing.append((old_by_raw.get(raw), line))
    missing = len(old_by_raw.keys() - {json.loads(line)["raw"] for line in lines})
    print(f"{len(lines):,} strings compared with {path}: {len(differing):,} differ, "
          f"{missing:,} in the dump not parsed now")  # fmt: skip
    for before, after in differing[:SHOWN_DIFFS]:
        print(_show(before, after) if before else f"  new string: {after[:160]}")
    return 1 if differing or missing else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, help="write the dump here")
    parser.add_argument("--check", type=Path, help="compare with this dump instead")
    args = parser.parse_args()
    if (args.out is None) == (args.check is None):
        parser.error("give either OUT or --check OLD")
    lines = [dump_line(source, raw) for source, raw in golden_strings()]
    if args.check:
        sys.exit(check(args.check, lines))
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines):,} parses written to {args.out}")


if __name__ == "__main__":
    main()
