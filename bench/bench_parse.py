"""Measure reference parse throughput on one core and peak memory while streaming 20,000 entries.

Usage: python bench/bench_parse.py [--n 20000] [--no-real]
Prints figures; asserts nothing (tests never assert wall time). Times are CPU time of this
process (time.process_time), so other work on a shared machine disturbs them less.

"Cold" passes parse each string once with the word-segmentation cache cleared first; no cache by
raw text exists, so the cold figure over distinct strings is the honest one. The real set is
every distinct string of the GROBID citation corpus and glutton-dev (see bench/parse_golden.py).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from parse_golden import real_strings  # noqa: E402
from proc_cpu import yardstick  # noqa: E402

from curation.references import parse_reference, read_references  # noqa: E402
from curation.references.words import segment  # noqa: E402

LABELLED = (
    Path(__file__).resolve().parent.parent / "tests/references/fixtures/labelled_references.jsonl"
)


def corpus() -> list[str]:
    """Return the labelled reference strings (the realistic mix, damaged shapes included)."""
    rows = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]
    return [r["raw"] for r in rows if r["raw"].strip()]


def throughput(refs: list[str], total: int, repeats: int = 3) -> float:
    """Return the best references-per-second of `repeats` runs of `total` parses.

    Best of several runs, because a shared machine adds noise in one direction only.
    """
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        start = time.process_time()
        for i in range(total):
            parse_reference(refs[i % len(refs)])
        best = min(best, time.process_time() - start)
    return total / best


def cold_throughput(refs: list[str], repeats: int = 3) -> float:
    """Return the best references per second of `repeats` passes, each with a cleared cache."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        segment.cache_clear()
        start = time.process_time()
        for ref in refs:
            parse_reference(ref)
        best = min(best, time.process_time() - start)
    return len(refs) / best


def rate(refs_per_second: float) -> str:
    """Return a throughput as refs/s and ms/ref."""
    return f"{refs_per_second:,.0f} refs/s ({1000 / refs_per_second:.3f} ms/ref)"


def numbered_text(refs: list[str], n: int) -> bytes:
    """Return a numbered plain-text reference list of n entries."""
    return "\n".join(f"[{i + 1}] {refs[i % len(refs)]}" for i in range(n)).encode("utf-8")


def _braceless(text: str) -> str:
    return text.replace("{", "").replace("}", "")


def bib_text(refs: list[str], n: int) -> bytes:
    """Return a BibTeX file of n entries."""
    return "\n".join(
        f"@article{{k{i},\n  title = {{{_braceless(refs[i % len(refs)][:120])}}},\n"
        f"  author = {{Smith, John and Doe, Jane}},\n  year = {{{1990 + i % 35}}},\n"
        f"  journal = {{Journal of Things}}, doi = {{10.1000/x{i}}}\n}}"
        for i in range(n)
    ).encode("utf-8")


def stream(data: bytes, fmt: str) -> tuple[int, float]:
    """Return (references, seconds) to read and parse every reference, none retained."""
    gc.collect()
    start = time.process_time()
    count = 0
    for ref in read_references(data, fmt):
        parse_reference(ref.raw)
        count += 1
    return count, time.process_time() - start


def stream_peak(data: bytes, fmt: str) -> int:
    """Return the peak bytes allocated while streaming already decoded text (tracemalloc)."""
    text = data.decode("utf-8")
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for ref in read_references(text, fmt):
        parse_reference(ref.raw)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--no-real", action="store_true", help="skip the real-set passes")
    args = parser.parse_args()
    refs = corpus()
    print(
        f"corpus: {len(refs)} labelled reference strings, "
        f"mean {sum(map(len, refs)) // len(refs)} chars; machine yardstick {yardstick():.0f} ms CPU "
        "(proc_cpu.yardstick: lower is a faster machine)"
    )
    print(f"parse_reference, cold, best of 3 passes: {rate(cold_throughput(refs))}")
    print(f"parse_reference, {args.n:,} parses:        {rate(throughput(refs, args.n))}")
    if not args.no_real:
        real = real_strings()
        print(
            f"real set: {len(real):,} distinct strings (GROBID corpus + glutton-dev), "
            f"mean {sum(map(len, real)) // len(real)} chars"
        )
        print(f"parse_reference, real set, cold, best of 3: {rate(cold_throughput(real))}")
    for fmt, make in (("text", numbered_text), ("bib", bib_text)):
        for n in (args.n // 10, args.n):
            data = make(refs, n)
            count, seconds = stream(data, fmt)
            peak = stream_peak(data, fmt)
            # The decoded input is held once (not counted here); what streaming itself costs
            # is the peak below, and it should not grow with the number of entries.
            text_size = sys.getsizeof(data.decode("utf-8"))
            print(
                f"stream {fmt:<4} {count:>6,} entries ({len(data) / 1e6:4.1f} MB, decoded "
                f"{text_size / 1e6:4.1f} MB): {count / seconds:>7,.0f} refs/s read+parse; "
                f"streaming peak {peak / 1e6:5.2f} MB"
            )


if __name__ == "__main__":
    main()
