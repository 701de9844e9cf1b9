"""Time import_arxiv_snapshot on generated snapshots of 100k / 1M / 3M papers.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/citerec_bench python bench/bench_catalogue.py 100000 1000000

Each size is generated once into bench/.data/ (plain JSON lines, ~1 KB a line, like arXiv's) and
imported into a fresh test database (migrations applied, so every index and trigger exists).
A second, unchanged import of the same file measures the idempotent path.
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import os
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")


# --- a realistic snapshot: Zipf-distributed title words, valid ids ---------------------

_SYLLABLES = (
    "ab ac al an ar as at ba be bi bo ca ce ci co da de di do el em en er es et fa fe fi fo ga "
    "ge gi go ha he hi ho id il im in io ir is it ka ke ki ko la le li lo lu ma me mi mo mu na "
    "ne ni no nu ob oc od ol om on op or os ot pa pe pi po pu ra re ri ro ru sa se si so su ta "
    "te ti to tu ul um un ur us va ve vi vo za ze zi zo"
).split()
_COMMON = "of the for and in with a on via to from by using".split()
_SURNAMES = (
    "Nakamura Okafor Lindqvist Moreau Castillo Novak Haddad Kowalski Fischer Tanaka Ivanova "
    "Mendes Osei Larsen Dubois Romero Petrov Schneider Yamamoto Achebe Bergstrom Costa Duarte "
    "Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Smith Johnson Brown Garcia Miller Davis"
).split()
_CATS = (
    "cs.LG cs.CV cs.CL hep-th hep-ph astro-ph.CO cond-mat.str-el math.AG quant-ph stat.ML".split()
)
_DAYS = "Mon Tue Wed Thu Fri Sat Sun".split()
_MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
VOCABULARY_SIZE = 60_000  # distinct title words, used with Zipf frequencies as in real titles


def vocabulary(rng: random.Random) -> list[str]:
    """Return distinct pseudo-words, most frequent first."""
    words: dict[str, None] = {}
    for size in itertools.count(2):
        for combo in itertools.product(_SYLLABLES, repeat=size):
            words["".join(combo)] = None
            if len(words) >= VOCABULARY_SIZE:
                found = list(words)
                rng.shuffle(found)
                return found
    raise AssertionError


def paper_id(n: int) -> tuple[str, int]:
    """Return a unique, valid new-style arXiv id for n (2015 on: five-digit numbers), and its year."""
    year = 2015 + n % 11
    month = 1 + (n // 11) % 12
    return f"{year % 100:02d}{month:02d}.{n // 132:05d}", year


def snapshot_lines(count: int, seed: int = 1) -> Iterator[str]:
    """Yield count snapshot lines (about 1.3 KB each, like arXiv's)."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    weights = list(itertools.accumulate(1.0 / (rank + 10) for rank in range(len(words))))
    abstract = json.dumps(" ".join(rng.choice(words) for _ in range(120)))
    for n in range(count):
        arxiv_id, year = paper_id(n)
        picked = rng.choices(words, cum_weights=weights, k=rng.randint(4, 10))
        for at in range(1, len(picked), 3):
            picked.insert(at, rng.choice(_COMMON))
        title = " ".join(picked).capitalize()
        authors = [
            (rng.choice(_SURNAMES), rng.choice("ABCDEFGHJK")) for _ in range(rng.randint(1, 6))
        ]
        versions = ", ".join(
            f'{{"version": "v{v + 1}", "created": "{_DAYS[v]}, {1 + v * 3} '
            f'{_MONTHS[(n + v) % 12]} {year + v // 2} 10:00:00 GMT"}}'
            for v in range(rng.randint(1, 3))
        )
        journal = "null" if n % 3 else f'"Phys. Rev. D {n % 110} ({year + 1})"'
        doi = "null" if n % 4 else f'"10.{1000 + n % 900}/bench.{n}"'
        names = ", ".join(f"{i}. {s}" for s, i in authors)
        parsed = json.dumps([[s, i, ""] for s, i in authors])
        yield (
            f'{{"id": "{arxiv_id}", "submitter": "{authors[0][0]}", "authors": "{names}", '
            f'"title": {json.dumps(title)}, "comments": "{rng.randint(5, 40)} pages", '
            f'"journal-ref": {journal}, "doi": {doi}, "report-no": null, '
            f'"categories": "{" ".join(rng.sample(_CATS, rng.randint(1, 3)))}", "license": null, '
            f'"abstract": {abstract}, "versions": [{versions}], "update_date": "{year}-06-01", '
            f'"authors_parsed": {parsed}}}'
        )


def generate(count: int) -> Path:
    path = ROOT / "bench" / ".data" / f"snapshot-{count}.jsonl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        with path.open("w") as out:
            for line in snapshot_lines(count):
                out.write(line + "\n")
        print(f"generated {count:,} lines in {time.perf_counter() - started:.0f}s: {path}")
    return path


def main() -> None:
    import django

    django.setup()
    from bench_crossref_import import cpu_now, machine, peak_rss_mb
    from django.conf import settings
    from django.db import connection
    from proc_cpu import yardstick

    from curation.audit import Actor
    from curation.resolution.services.catalogue_imports import import_arxiv_snapshot

    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", type=int, default=[100_000])
    parser.add_argument("--processes", type=int, default=1)
    args = parser.parse_args()
    sizes = args.sizes
    # The revision before worker processes parsed the snapshot took no `processes`.
    parameters = inspect.signature(import_arxiv_snapshot).parameters
    options = {"processes": args.processes} if "processes" in parameters else {}
    for count in sizes:
        path = generate(count)
        name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
        try:
            for label, restart in (("first import", False), ("re-import, unchanged", True)):
                where = f"{machine(connection)}, yardstick {yardstick():.0f} ms"
                cpu = cpu_now(connection)
                started = time.perf_counter()
                report = import_arxiv_snapshot(
                    path=path, actor=Actor.importer("bench"), reason="bench", restart=restart,
                    batch_size=settings.CITEREC_IMPORT_BATCH, **options,
                )  # fmt: skip
                took = time.perf_counter() - started
                python, backend = (b - a for a, b in zip(cpu, cpu_now(connection), strict=True))
                print(
                    f"{count:>9,} papers, {options.get('processes', 1)} proc, {label:<21} {took:7.1f}s  {count / took:8,.0f} papers/s"
                    f"  CPU per paper: Python {python / count * 1e6:.0f} + PostgreSQL "
                    f"{backend / count * 1e6:.0f} us  (added {report.inserted:,}, updated "
                    f"{report.updated:,}), peak RSS {peak_rss_mb():.0f} MB  [{where}]",
                    flush=True,
                )
        finally:
            connection.close()
            connection.creation.destroy_test_db(name, verbosity=0)


if __name__ == "__main__":
    main()
