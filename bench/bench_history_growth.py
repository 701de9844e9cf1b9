"""Measure how the history tables grow per million observations (issue 8: retention planning).

Inserts N observations with their resolutions inside one audit context, then re-resolves every
one of them once (an UPDATE round), and prints table sizes scaled to one million observations.
Everything runs in one transaction that is rolled back: the database is left as it was.

    DEBUG=1 python bench/bench_history_growth.py [N]      # default 200000
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "citerec.settings")
os.environ.setdefault("DEBUG", "1")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402

from curation.audit import Actor, audited  # noqa: E402

TABLES = [
    "curation_observation",
    "curation_resolution",
    "curation_observationevent",
    "curation_resolutionevent",
    "pghistory_context",
]

INSERT_OBSERVATIONS = """
INSERT INTO curation_observation (id, paper_id, source, reference_index, source_observed_at, raw_text,
  normalized_text, occurrence, work_described, work_title, work_year, work_metadata_source, pinned,
  no_canonical_record, revision, changed_at)
SELECT gen_random_uuid(), %s, 'bench', g, now(), 'Author, A. A title of reference ' || g || '. 2020.',
  'author a a title of reference ' || g || ' 2020', 1, true, 'A title of reference ' || g, 2020,
  'raw_reference', false, false, 1, now()
FROM generate_series(1, %s) g
"""
INSERT_RESOLUTIONS = """
INSERT INTO curation_resolution (observation_id, status, resolver_source, observed_at, evidence,
  origin, resolver_version)
SELECT id, 'unresolved', 'raw_fallback', now(),
  '{"candidates": [{"arxiv_id": "2001.00001", "score": 0.61}], "resolver_version": "1"}'::jsonb,
  'computed', '1'
FROM curation_observation WHERE source = 'bench'
"""
UPDATE_RESOLUTIONS = """
UPDATE curation_resolution r SET status = 'verified_fuzzy', resolver_version = '2'
FROM curation_observation o WHERE o.id = r.observation_id AND o.source = 'bench'
"""


def sizes() -> dict[str, int]:
    """Return the total size in bytes (heap, indexes, TOAST) of each table."""
    with connection.cursor() as cursor:
        return {
            table: cursor.execute("SELECT pg_total_relation_size(%s)", [table]).fetchone()[0]  # type: ignore[union-attr]
            for table in TABLES
        }


def per_million(before: dict[str, int], after: dict[str, int], n: int) -> dict[str, float]:
    return {t: (after[t] - before[t]) * 1_000_000 / n / 2**20 for t in TABLES}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    print(f"history growth, {n:,} observations, database {connection.settings_dict['NAME']}")
    try:
        with transaction.atomic(), audited(Actor.command("bench_history_growth"), "benchmark"):
            with connection.cursor() as cursor:
                cursor.execute(
                    "INSERT INTO curation_paper (arxiv_id, title, authors, doi, categories, journal_ref, "
                    "comments, in_catalogue) VALUES ('bench/0000001', 'bench', '', '', '', '', '', false) "
                    "RETURNING id"
                )
                paper_id = cursor.fetchone()[0]  # type: ignore[index]
                start = sizes()
                print("measuring", flush=True)
                t0 = time.perf_counter()
                cursor.execute(INSERT_OBSERVATIONS, [paper_id, n])
                cursor.execute(INSERT_RESOLUTIONS)
                inserted = sizes()
                t1 = time.perf_counter()
                cursor.execute(UPDATE_RESOLUTIONS)
                updated = sizes()
                t2 = time.perf_counter()
            print(f"insert {n:,}: {t1 - t0:.1f} s; one update round: {t2 - t1:.1f} s")
            print(f"{'table':<28}{'MiB/1M inserted':>18}{'MiB/1M per update round':>26}")
            grow_insert, grow_update = per_million(start, inserted, n), per_million(inserted, updated, n)
            for table in TABLES:
                print(f"{table:<28}{grow_insert[table]:>18.1f}{grow_update[table]:>26.1f}")
            raise KeyboardInterrupt  # roll back: leave the database as it was
    except KeyboardInterrupt:
        print("rolled back")


if __name__ == "__main__":
    main()
