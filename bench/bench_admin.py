"""Time the curator screens on a large table: the work queue, its filters and searches, an
observation page, and the change log, with the indexes the admin needs.

Usage: python bench/bench_admin.py [--observations 1000000] [--keep] [--no-indexes]

It creates a throwaway database next to the configured one (DATABASE_URL, else the embedded
PostgreSQL), migrates it, and fills it in SQL (`INSERT ... SELECT generate_series`): papers with
40 references each, a resolution per reference with a best candidate in its evidence, a few
pinned references with a stored resolver disagreement, and history for a slice of them. The bulk
fixture skips the history triggers (pgtrigger.ignore): it is a fixture, not curated data. Then it
adds the indexes listed in INDEXES (the ones proposed for the curation models), ANALYZEs, and
times each page with the Django test client: best of 3, in ms. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BENCH_DB = "citerec_bench_admin"
REFS_PER_PAPER = 40

# The indexes the curator screens need (proposed for curation/models.py; see README-admin.md).
INDEXES = [
    # The to-fix queue walks live references of a paper in order.
    "CREATE INDEX IF NOT EXISTS obs_queue_live ON curation_observation (paper_id, reference_index, id)"
    " WHERE retired_at IS NULL AND NOT no_canonical_record",
    "CREATE INDEX IF NOT EXISTS obs_work_doi ON curation_observation (work_doi) WHERE work_doi IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS obs_work_arxiv_id ON curation_observation (work_arxiv_id)"
    " WHERE work_arxiv_id IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS obs_work_pith_arxiv_id ON curation_observation (work_pith_arxiv_id)"
    " WHERE work_pith_arxiv_id IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS obs_normalized_text ON curation_observation USING hash (normalized_text)",
    "CREATE INDEX IF NOT EXISTS obs_pinned ON curation_observation (pinned) WHERE pinned",
    "CREATE INDEX IF NOT EXISTS obs_text_fts ON curation_observation USING gin ("
    "to_tsvector('simple'::regconfig, COALESCE(work_title, '') || ' ' || COALESCE(raw_text, '')))",
    "CREATE INDEX IF NOT EXISTS resolution_source ON curation_resolution (resolver_source)",
    "CREATE INDEX IF NOT EXISTS pgh_context_actor ON pghistory_context ((metadata ->> 'actor'))",
    "CREATE INDEX IF NOT EXISTS pgh_context_source ON pghistory_context ((metadata ->> 'source'))",
]


def _base_url() -> str:
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    from citerec.embedded import embedded_database_url

    return embedded_database_url(REPO / ".data" / "pg")


def _admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def _seed(observations: int) -> None:
    """Fill the database with papers, observations, resolutions and some history."""
    import pgtrigger
    from django.db import connection

    from curation.audit import Actor, audited

    papers = max(observations // REFS_PER_PAPER, 1)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO curation_paper (arxiv_id, title, authors, doi, categories, journal_ref,
                comments, in_catalogue, first_author, title_norm, title_key, withdrawn, year)
            SELECT '26' || lpad((g %% 12 + 1)::text, 2, '0') || '.' || lpad(g::text, 6, '0'),
                   'Paper ' || g, 'Author ' || g, '', 'cs.LG', '', '', true, 'author', 'paper ' || g,
                   'paper' || g, false, 2020 + g %% 6
            FROM generate_series(1, %s) g
            """,
            [papers],
        )
        cursor.execute("SELECT min(id) FROM curation_paper")
        first = cursor.fetchone()[0]
        with pgtrigger.ignore("curation.Observation:insert_insert", "curation.Resolution:insert_insert"):
            cursor.execute(
                """
                INSERT INTO curation_observation (id, paper_id, source, reference_index,
                    source_observed_at, raw_text, normalized_text, occurrence, work_described,
                    work_title, work_year, work_doi, work_arxiv_id, pinned, no_canonical_record,
                    revision, changed_at)
                SELECT gen_random_uuid(), %s + g / %s, 'reference_list', g %% %s + 1, now(),
                       'A. Author. Study number ' || g || ' of deep learning systems ' || (g %% 997) || '. 2023.',
                       'a. author. study number ' || g || ' of deep learning systems ' || (g %% 997) || '. 2023.',
                       1, true, 'Study number ' || g || ' of deep learning systems ' || (g %% 997), 2023,
                       CASE WHEN g %% 7 = 0 THEN '10.1000/study.' || g END,
                       CASE WHEN g %% 11 = 0 THEN '2301.' || lpad((g %% 99999)::text, 5, '0') END,
                       g %% 500 = 0, g %% 50 = 0, 1, now()
                FROM generate_series(0, %s - 1) g
                """,
                [first, REFS_PER_PAPER, REFS_PER_PAPER, observations],
            )
            cursor.execute(
                """
                INSERT INTO curation_resolution (observation_id, status, resolver_source, observed_at,
                    evidence, origin, resolver_version)
                SELECT id,
                       (ARRAY['verified_exact','verified_fuzzy','metadata_mismatch','unresolved',
                              'malformed_identifier','parse_uncertain'])[1 + (reference_index %% 6)],
                       (ARRAY['local_arxiv','pith','doi','raw_fallback'])[1 + (reference_index %% 4)],
                       now(),
                       jsonb_build_object('decision', 'bench', 'candidates', jsonb_build_array(
                           jsonb_build_object('arxiv_id', '2301.' || lpad(reference_index::text, 5, '0'),
                                              'doi', null, 'title', work_title, 'source', 'local_arxiv',
                                              'score', 50 + reference_index))),
                       'computed', 'resolver-1.0'
                FROM curation_observation
                """,
                [],
            )
        cursor.execute(
            """
            INSERT INTO resolution_pinneddisagreement (observation_id, status, resolver_source,
                evidence, resolver_version, found_at)
            SELECT id, 'unresolved', 'raw_fallback', '{}'::jsonb, 'resolver-1.0', now()
            FROM curation_observation WHERE pinned
            """
        )
    # Real, audited history for a slice: the log and history screens read it.
    with audited(Actor.command("bench"), "bench history"), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE curation_observation SET revision = revision + 1 WHERE reference_index <= 3"
        )


def _time(client: object, url: str, repeats: int = 3) -> tuple[float, int]:
    """Return the best wall time in ms of GET url, and its status."""
    times, status = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        response = client.get(url)  # type: ignore[attr-defined]
        times.append((time.perf_counter() - start) * 1000)
        status = response.status_code
    return min(times), status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observations", type=int, default=1_000_000)
    parser.add_argument("--keep", action="store_true", help="keep the bench database")
    parser.add_argument("--no-indexes", action="store_true", help="time without the proposed indexes")
    args = parser.parse_args()

    base = _base_url()
    parts = urlsplit(base)
    url = urlunsplit(parts._replace(path=f"/{BENCH_DB}"))
    _admin(base, f"DROP DATABASE IF EXISTS {BENCH_DB}")
    _admin(base, f"CREATE DATABASE {BENCH_DB}")
    os.environ.update({"DATABASE_URL": url, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "citerec.settings"})
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from curation.models import Observation

    try:
        started = time.perf_counter()
        call_command("migrate", verbosity=0)
        _seed(args.observations)
        print(f"seeded {args.observations:,} observations in {time.perf_counter() - started:.0f} s")
        if not args.no_indexes:
            started = time.perf_counter()
            with connection.cursor() as cursor:
                for sql in INDEXES:
                    cursor.execute(sql)
            print(f"built {len(INDEXES)} indexes in {time.perf_counter() - started:.0f} s")
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        user = get_user_model().objects.create_superuser("bench", "bench@example.org", "bench-pw-long-1")
        client = Client()
        client.force_login(user)
        sample = Observation.objects.filter(work_doi__isnull=False, pinned=True).first() or Observation.objects.first()
        assert sample is not None
        queue = "/admin/curation/observation/"
        pages = {
            "queue: to fix, page 1": queue,
            "queue: to fix, page 200": queue + "?p=200",
            "queue: verified fuzzy": queue + "?queue=spot_check",
            "queue: resolver disagrees": queue + "?queue=disagreements",
            "queue: state malformed + source doi": queue + "?queue=live&state=malformed_identifier&resolver_source=doi",
            "queue: pinned": queue + "?queue=live&pinned=yes",
            "queue: one paper": queue + f"?queue=live&paper={sample.paper.arxiv_id}",
            "search: words of the title": queue + "?queue=live&q=study+number+4242",
            "search: arXiv id": queue + "?queue=live&q=2301.00011",
            "search: DOI": queue + f"?queue=live&q={sample.work_doi or '10.1000/study.7'}",
            "observation page": f"{queue}{sample.pk}/change/",
            "observation history": f"{queue}{sample.pk}/history/",
            "change log, page 1": f"{queue}log/",
            "change log, by user": f"{queue}log/?user=command:bench",
            "change log, one model + action": f"{queue}log/?model=observation&action=update",
        }
        print(f"{'page':40} {'status':>6} {'best of 3 (ms)':>15}")
        figures = []
        for name, path in pages.items():
            ms, status = _time(client, path)
            figures.append(ms)
            print(f"{name:40} {status:>6} {ms:>15.1f}")
        print(f"median {statistics.median(figures):.1f} ms, worst {max(figures):.1f} ms")
    finally:
        connection.close()
        if not args.keep:
            _admin(base, f"DROP DATABASE IF EXISTS {BENCH_DB}")


if __name__ == "__main__":
    main()
