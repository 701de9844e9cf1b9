"""Resolve references against generated catalogues and print references/s and cost per reference.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/citerec_bench python bench/bench_resolve.py 100000 1000000

For each catalogue size: a fresh test database, the generated snapshot imported (see
bench_catalogue.py), then 12,000 references built from catalogue papers:
- "identifier": arXiv id + title + authors (the id decides);
- "title only": authors, title, venue, year (full-text candidates + scoring);
- "mixed": 40% identifier, 40% title only, 20% absent titles and author fragments.
Verdicts only (resolve_references path), in one process and in two worker processes; then the
full write path (observations_resolve: verdict + Observation/Resolution rows + history) for
2,000 observations as a reference list's import leaves them, each with its text's parse
stored (1,000 in one process, 1,000 split over two); the notice refreshes the
write path queues are published, not run (they are the notices queue's work).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ["CITEREC_OFFLINE"] = "1"
# As the workers run: DEBUG off (with it, Django logs every statement and the resolver's reads
# are not prepared; DEBUG=1 in the environment measures that), and their garbage collector
# settings (citerec/celery.py), applied once the process has loaded what it keeps.
os.environ.setdefault("DEBUG", "0")
os.environ.setdefault("SECRET_KEY", "bench-resolve-" + "k" * 50)
N_REFS = 12000


def make_refs(sample: list[tuple[str, str, str, int]], kind: str, rng: random.Random) -> list[str]:
    refs = []
    for arxiv_id, title, surname, year in sample:
        roll = rng.random()
        if kind == "identifier" or (kind == "mixed" and roll < 0.4):
            refs.append(f"{surname.title()}, A. {title}. arXiv preprint arXiv:{arxiv_id}, {year}.")
        elif kind == "title only" or roll < 0.8:
            refs.append(f"{surname.title()}, A., and Other, B. {title}. In Proc. Bench, {year}.")
        elif roll < 0.9:
            refs.append(f"Absentia, Q. Unheard of methods for {title.lower()[:20]} zebra, {year}.")
        else:
            refs.append(f"{surname.title()}, A., Other, B., and Third, C")
    return refs


def resolve_all(refs: list[str]) -> float:
    from curation.resolution.verdicts import resolve_raw_batch

    started = time.perf_counter()
    for i in range(0, len(refs), 200):
        resolve_raw_batch([(j, r) for j, r in enumerate(refs[i : i + 200])])
    return time.perf_counter() - started


def _worker(refs: list[str]) -> float:
    return resolve_all(refs)  # the parent closed its connection before forking: a new one here


def two_workers(refs: list[str], db_name: str) -> float:
    from django.conf import settings
    from django.db import connection

    settings.DATABASES["default"]["NAME"] = db_name
    connection.close()  # never share a socket with the children
    halves = [refs[0::2], refs[1::2]]
    started = time.perf_counter()
    with mp.get_context("fork").Pool(2) as pool:
        pool.map(_worker, halves)
    return time.perf_counter() - started


def parse_cost(refs: list[str]) -> float:
    from curation.references import parse_reference

    started = time.perf_counter()
    for raw in refs:
        parse_reference(raw)
    return (time.perf_counter() - started) / len(refs)


def input_cost(refs: list[str]) -> tuple[float, float]:
    """Return the Python CPU seconds per reference to read the resolver's input of imported
    observations: from the parse stored at import (one read of their listings), and by
    parsing their text again (as for observations with none)."""
    from curation.models import Observation
    from curation.resolution.selectors import listings_of, observation_prepared

    observations = list(Observation.objects.filter(source="bench").order_by("reference_index"))
    started = time.process_time()
    listings = listings_of(observations)
    for observation in observations:
        observation_prepared(observation, listings.get(observation.pk))
    stored = time.process_time() - started
    started = time.process_time()
    for observation in observations:
        observation_prepared(observation)
    parsed = time.process_time() - started
    return stored / len(observations), parsed / len(observations)


def _write_worker(ids: list[Any]) -> float:
    from curation.audit import Actor
    from curation.models import Observation
    from curation.resolution.services import observations_resolve

    observations = list(Observation.objects.filter(pk__in=ids).order_by("pk"))
    started = time.perf_counter()
    for i in range(0, len(observations), 250):
        observations_resolve(
            observations=observations[i : i + 250], actor=Actor.command("bench"), reason="bench"
        )
    return time.perf_counter() - started


def write_path(refs: list[str], db_name: str) -> tuple[float, float]:
    """Return seconds to resolve and write refs as observations: in one process, in two."""

    from citerec.celery import app
    from curation.audit import Actor
    from curation.models import Observation
    from curation.references.listed import ListedReference
    from curation.services import reference_list_import

    # As in production, the first notice check of newly linked works is queued for the notices
    # workers (here to an in-memory broker nobody consumes), not run inside the resolver's job.
    app.conf.task_always_eager = False
    actor = Actor.command("bench")
    # Observations as a list's import leaves them: each with its text's parse stored.
    listed = [ListedReference(i, raw) for i, raw in enumerate(refs, 1)]
    reference_list_import(arxiv_id="2412.99999", references=listed, actor=actor,
                          reason="bench setup", source="bench")  # fmt: skip
    observations = list(Observation.objects.filter(source="bench").order_by("reference_index"))
    one = _write_worker([o.pk for o in observations[: len(observations) // 2]])
    one = one * 2  # per reference cost of one process, over the same number of references
    from django.conf import settings
    from django.db import connection

    settings.DATABASES["default"]["NAME"] = db_name
    connection.close()
    rest = [o.pk for o in observations[len(observations) // 2 :]]
    started = time.perf_counter()
    with mp.get_context("fork").Pool(2) as pool:
        pool.map(_write_worker, [rest[0::2], rest[1::2]])
    return one, (time.perf_counter() - started) * 2


def main() -> None:
    import django

    django.setup()
    from bench_catalogue import generate
    from django.db import connection

    from citerec.celery import _collect_less  # the workers' process setup
    from curation.audit import Actor
    from curation.resolution.services.catalogue_imports import import_arxiv_snapshot

    sizes = [int(a) for a in sys.argv[1:]] or [100_000]
    rng = random.Random(7)
    for count in sizes:
        path = generate(count)
        name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
        try:
            import_arxiv_snapshot(path=path, actor=Actor.importer("bench"), reason="bench")
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE curation_paper")
                cursor.execute(
                    "SELECT arxiv_id, title, first_author, year FROM curation_paper "
                    "ORDER BY random() LIMIT %s", [N_REFS]
                )  # fmt: skip
                rows: list[Any] = cursor.fetchall()
            rng.shuffle(rows)
            sample = rows[:N_REFS]
            _collect_less()
            print(f"catalogue {count:,} papers; {len(sample):,} references per kind")
            for kind in ("identifier", "title only", "mixed"):
                refs = make_refs(sample, kind, rng)
                cpu = time.process_time()
                one = resolve_all(refs)
                cpu = (
                    time.process_time() - cpu
                )  # this process only: PostgreSQL's share is not in it
                two = two_workers(refs, name)
                print(
                    f"  {kind:<11} 1 process {len(refs) / one:7,.0f} refs/s "
                    f"({one / len(refs) * 1e3:.2f} ms/ref, Python CPU {cpu / len(refs) * 1e3:.2f} ms, "
                    f"parse {parse_cost(refs[:500]) * 1e3:.2f} ms)"
                    f" | 2 workers {len(refs) / two:7,.0f} refs/s  [load {os.getloadavg()[0]:.1f}]",
                    flush=True,
                )
            refs = make_refs(sample[:2000], "mixed", rng)
            one, two = write_path(refs, name)
            print(f"  write path (mixed; verdict + observation/resolution rows + history): "
                  f"1 process {len(refs) / one:,.0f} refs/s | 2 workers {len(refs) / two:,.0f} refs/s",
                  flush=True)  # fmt: skip
            stored, parsed = input_cost(refs)
            print(f"  resolver input of imported observations (Python CPU): from the stored parse "
                  f"{stored * 1e3:.3f} ms/ref | parsed again {parsed * 1e3:.3f} ms/ref", flush=True)  # fmt: skip
        finally:
            connection.close()
            connection.creation.destroy_test_db(name, verbosity=0)


if __name__ == "__main__":
    main()
