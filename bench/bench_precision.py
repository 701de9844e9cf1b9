"""Time the reads and the sample draw of the resolver measured by its curators (issue 41 item 3)
on N automatic links and N/500 curator labels (0.2 %, as bench/make_arxiv_db.py decides).

Inserts N observations with resolver verdicts (60 % whole-string links with a calibrated
probability, mostly high; 30 % by identifier; 10 % by title) and the labels, ANALYZEs, then
times: counting the links per band (`automatic_link_bands`), drawing 20 per band
(`automatic_links_drawn`), the whole draw service (`link_sample_draw`, which stores the sample),
and the figures of the precision page and API (`resolver_precision`), each the median of
--repeat runs. Everything runs in one transaction that is rolled back: the database is left as
it was.

    DATABASE_URL=... python bench/bench_precision.py [N] [--repeat 3]     # default 200000
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "citerec.settings")
os.environ.setdefault("DEBUG", "1")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402

from curation.audit import Actor, audited  # noqa: E402
from curation.resolution.selectors import (  # noqa: E402
    automatic_link_bands,
    automatic_links_drawn,
    resolver_precision,
)
from curation.services.link_samples import link_sample_draw  # noqa: E402

ACTOR = Actor.command("bench_precision")
INSERT_OBSERVATIONS = """
INSERT INTO curation_observation (id, paper_id, cited_paper_id, source, reference_index,
  source_observed_at, raw_text, normalized_text, occurrence, work_described, pinned,
  no_canonical_record, revision, changed_at)
SELECT gen_random_uuid(), %s, %s, 'bench_precision', g, now(),
  'Author, A. A title of reference ' || g || '. 2020.', 'author a a title of reference ' || g,
  1, true, false, false, 1, now()
FROM generate_series(1, %s) g
"""
# x in [0, 1) spread evenly; p = 1 - 0.6 x^4 puts most links above 0.95, as the resolver does.
INSERT_RESOLUTIONS = """
INSERT INTO curation_resolution (observation_id, status, resolver_source, observed_at, evidence,
  origin, resolver_version)
SELECT id,
  CASE WHEN reference_index %% 10 < 6 THEN 'verified_fuzzy' ELSE 'verified_exact' END,
  'local_arxiv', now(),
  CASE WHEN reference_index %% 10 < 6 THEN jsonb_build_object('step', 'string', 'matched',
         jsonb_build_object('probability', round((1 - 0.6 * power(((reference_index::bigint * 7919) %% 10000) / 10000.0, 4))::numeric, 4)))
       WHEN reference_index %% 10 < 9 THEN '{"step": "identifier"}'::jsonb
       ELSE '{"step": "title"}'::jsonb END,
  'computed', 'bench'
FROM curation_observation WHERE source = 'bench_precision'
"""
INSERT_LABELS = """
INSERT INTO resolution_verdictlabel (observation_id, step, status, resolver_source,
  resolver_version, probability, band, linked, outcome, why, action, actor, decided_at, revision)
SELECT id, 'string', 'verified_fuzzy', 'local_arxiv', 'bench', 0.9,
  (ARRAY['0.00–0.50', '0.50–0.80', '0.90–0.95', '0.99–1.00', 'no probability (identifier)'])[1 + (reference_index / 500) %% 5],
  'arXiv:2001.00001', CASE WHEN (reference_index / 500) %% 7 = 0 THEN 'relinked' ELSE 'confirmed' END,
  CASE WHEN (reference_index / 500) %% 3 = 0 THEN 'sampled' ELSE 'queue' END, 'link_arxiv', 'user:bench',
  now(), 2
FROM curation_observation WHERE source = 'bench_precision' AND reference_index %% 500 = 0
"""


def timed(what: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Return the median wall time in ms of `repeat` calls, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = what()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.n
    print(f"resolver precision reads, {n:,} automatic links, {n // 500:,} labels, database "
          f"{connection.settings_dict['NAME']}, load {os.getloadavg()[0]:.1f}")  # fmt: skip
    try:
        with transaction.atomic(), audited(ACTOR, "benchmark"):
            with connection.cursor() as cursor:
                cursor.execute(
                    "INSERT INTO curation_paper (arxiv_id, title, authors, doi, categories, "
                    "journal_ref, comments, in_catalogue, first_author, title_norm, title_key, "
                    "withdrawn) VALUES ('bench/0000002', 'bench', '', '', '', '', '', false, '', "
                    "'', '', false) RETURNING id"
                )
                paper_id = cursor.fetchone()[0]  # type: ignore[index]
                started = time.perf_counter()
                cursor.execute(INSERT_OBSERVATIONS, [paper_id, paper_id, n])
                cursor.execute(INSERT_RESOLUTIONS)
                cursor.execute(INSERT_LABELS)
                cursor.execute("ANALYZE curation_observation, curation_resolution, "
                               "resolution_verdictlabel")  # fmt: skip
                print(f"built in {time.perf_counter() - started:.1f} s", flush=True)
            ms, bands = timed(automatic_link_bands, args.repeat)
            print(f"links per band ({len(bands)} bands, {sum(bands.values()):,} links): {ms:,.0f} ms")
            ms, drawn = timed(lambda: automatic_links_drawn(seed="bench", per_band=20), args.repeat)
            print(f"draw 20 per band ({len(drawn)} links): {ms:,.0f} ms")
            ms, sample = timed(
                lambda: link_sample_draw(per_band=20, seed="bench", actor=ACTOR, reason="bench"), 1
            )
            print(f"link_sample_draw (counts, draw, store {sample.items.count()} items): {ms:,.0f} ms")
            ms, figures = timed(resolver_precision, args.repeat)
            print(f"resolver_precision ({len(figures.by_band)} band rows, "
                  f"{len(figures.by_step_state)} step rows): {ms:,.1f} ms")  # fmt: skip
            print(f"load after {os.getloadavg()[0]:.1f}")
            raise KeyboardInterrupt  # roll back: leave the database as it was
    except KeyboardInterrupt:
        print("rolled back")


if __name__ == "__main__":
    main()
