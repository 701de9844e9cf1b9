"""Time the pages of a paper with 1,500 references, uncached, in a database of 100,000
observations: the integrity page, the curator's search, and the paper's observations API.

Usage: python bench/bench_slow_pages.py [--observations 100000] [--references 1500]
                                        [--requests 20] [--database NAME] [--keep]

It creates a throwaway database next to the configured one (DATABASE_URL, else the embedded
PostgreSQL), migrates it, fills it with bench_admin's fixture (papers of 40 references, a
resolution each, a little history), then adds one paper with --references references of the
kinds the samples hold (GitHub issues and commits, DOIs, arXiv ids, accented author names, broken
parses) with resolutions whose evidence lists five candidates, and standing notices (some with a
retraction or correction). The bulk fixture skips the history triggers, as bench_admin's does.

Each page is asked --requests times with the Django test client, in process, DEBUG off and
throttles off. Uncached means: before every request every configured cache is cleared
(`caches[name].clear()` for each alias: built integrity reports, record bytes, API pages) and so
are the API's per-process page memories (api.page_cache `_local` and `_memo`), so each request
builds its answer from the database. Prints, per page, the median and p95 wall time in ms, the
median CPU time of this process (the web side: less sensitive to a busy machine than wall time),
the number of SQL statements one request issues (CaptureQueriesContext), the status and the rows
found; and the load average before and after. Asserts nothing but that every page answers 200.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_admin import REFS_PER_PAPER, _admin, _base_url  # noqa: E402
from bench_admin import _seed as seed_admin_fixture  # noqa: E402
from bench_api import _with_database  # noqa: E402

BENCH_DB = "bench_slow_pages"
PAPER = "2412.99999"
# What a curator types: words, hosts, path parts, identifiers, a family name, a title word.
SEARCHES = (
    "github",
    "github.com",
    "NVIDIA/apex",
    "apex",
    "10.1038/nature14539",
    "1512.03385",
    "Müller",
    "residual",
)


def _seed_big_paper(references: int) -> None:
    """Add the paper with many references, its resolutions and standing notices, in SQL."""
    import pgtrigger
    from django.db import connection

    triggers = (
        "curation.Observation:insert_insert",
        "curation.Resolution:insert_insert",
        "curation.StandingNotice:insert_insert",
    )
    with connection.cursor() as cursor, pgtrigger.ignore(*triggers):
        cursor.execute(
            """
            INSERT INTO curation_paper (arxiv_id, title, authors, doi, categories, journal_ref,
                comments, in_catalogue, first_author, title_norm, title_key, withdrawn, year,
                latest_version, submitted_at, last_updated, snapshot_observed_at)
            VALUES (%s, 'A survey with very many references', 'A. Surveyor', '', 'cs.LG', '', '',
                    true, 'surveyor', 'a survey with very many references',
                    'asurveywithverymanyreferences', false, 2024, 1, now(), now(), now())
            RETURNING id
            """,
            [PAPER],
        )
        paper = cursor.fetchone()[0]
        # Reference kinds by g % 100: 15 GitHub references in all (issues, pulls, commits),
        # one DOI reference (Nature), one arXiv reference (ResNet), accented authors, the rest
        # ordinary titled references; a few broken parses.
        cursor.execute(
            """
            INSERT INTO curation_observation (id, paper_id, source, reference_index,
                source_observed_at, raw_text, normalized_text, occurrence, work_described,
                work_title, work_year, work_venue, work_doi, work_arxiv_id, pinned,
                no_canonical_record, revision, changed_at)
            SELECT gen_random_uuid(), %s, 'arxiv_source', g, now(), t.raw, lower(t.raw), 1,
                   true, t.title, 2000 + g %% 25, t.venue, t.doi, t.arxiv, false, false, 1, now()
            FROM generate_series(1, %s) g
            CROSS JOIN LATERAL (SELECT
                CASE
                  WHEN g %% 100 = 7 AND g <= 1500 THEN
                    'NVIDIA. Fused optimizer crash, issue ' || g
                    || '. https://github.com/NVIDIA/apex/issues/' || g
                  WHEN g = 11 THEN 'Y. LeCun, Y. Bengio, G. Hinton. Deep learning. Nature 521, '
                                   '436-444 (2015). doi:10.1038/nature14539'
                  WHEN g = 12 THEN 'K. He, X. Zhang, S. Ren, J. Sun. Deep Residual Learning for '
                                   'Image Recognition. arXiv:1512.03385, 2015.'
                  WHEN g %% 50 = 13 THEN 'J. Müller, A. Šimić. Gradient methods, part ' || g
                                         || '. In Proc. ICML, 2021.'
                  WHEN g %% 97 = 5 THEN 'E., Thekkath, C ' || g
                  ELSE 'A. Author' || g || ', B. Writer. On learning systems volume ' || g
                       || '. Journal of Studies ' || (g %% 40) || ', 2022.'
                END AS raw,
                CASE
                  WHEN g %% 100 = 7 THEN 'Fused optimizer crash, issue ' || g
                  WHEN g = 11 THEN 'Deep learning'
                  WHEN g = 12 THEN 'Deep Residual Learning for Image Recognition'
                  WHEN g %% 50 = 13 THEN 'Gradient methods, part ' || g
                  WHEN g %% 97 = 5 THEN NULL
                  ELSE 'On learning systems volume ' || g
                END AS title,
                CASE WHEN g %% 3 = 0 THEN 'Journal of Studies' END AS venue,
                CASE WHEN g = 11 THEN '10.1038/nature14539'
                     WHEN g %% 9 = 0 THEN '10.5555/studies.' || g END AS doi,
                CASE WHEN g = 12 THEN '1512.03385' END AS arxiv
            ) t
            """,
            [paper, references],
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
                   jsonb_build_object('decision', 'bench', 'resolver_version', 'resolver-1.0',
                       'identifiers', jsonb_build_object('doi', work_doi, 'arxiv', work_arxiv_id),
                       'candidates', (SELECT jsonb_agg(jsonb_build_object(
                           'arxiv_id', '2301.' || lpad((reference_index * 5 + c)::text, 5, '0'),
                           'doi', null, 'title', coalesce(work_title, '') || ' candidate ' || c,
                           'source', 'local_arxiv', 'score', 90 - c * 7,
                           'title_similarity', 95 - c * 6, 'year_check', 'consistent',
                           'author_check', 'unknown', 'venue_check', 'unknown',
                           'fields', jsonb_build_object('title', work_title, 'year', work_year)))
                         FROM generate_series(1, 5) c)),
                   'computed', 'resolver-1.0'
            FROM curation_observation WHERE paper_id = %s
            """,
            [paper],
        )
        cursor.execute(
            """
            INSERT INTO curation_standingnotice (observation_id, state, reason, observation_text,
                events, source_receipts, origin, refreshed_at)
            SELECT id,
                   'measured', NULL,
                   CASE WHEN reference_index %% 40 IN (1, 2) THEN NULL
                        ELSE 'No event found in the named queried sources as of '
                             || to_char(now() AT TIME ZONE 'UTC',
                                        'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') || '.' END,
                   CASE reference_index %% 40
                     WHEN 1 THEN jsonb_build_array(jsonb_build_object('date', '2023-05-01',
                         'notice_doi', '10.5555/retraction.' || reference_index, 'notice_url', null,
                         'reasons', jsonb_build_array('bench'), 'source', 'crossref',
                         'source_record_id', null, 'type', 'retraction'))
                     WHEN 2 THEN jsonb_build_array(jsonb_build_object('date', '2022-01-01',
                         'notice_doi', null, 'notice_url', 'https://example.org/c/' || reference_index,
                         'reasons', jsonb_build_array(), 'source', 'retraction_watch',
                         'source_record_id', '12' || reference_index, 'type', 'correction'))
                     ELSE '[]'::jsonb END,
                   jsonb_build_array(
                     jsonb_build_object('observed_at', to_char(now() AT TIME ZONE 'UTC',
                         'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'), 'outcome', 'answered',
                         'source', 'crossref'),
                     jsonb_build_object('observed_at', to_char(now() AT TIME ZONE 'UTC',
                         'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'), 'outcome', 'answered',
                         'source', 'retraction_watch')),
                   'computed', now()
            FROM curation_observation WHERE paper_id = %s AND reference_index %% 5 <> 0
            """,
            [paper],
        )


def in_process_environment(database_url: str, **extra: str) -> dict[str, str]:
    """Return the settings a benchmark asking pages in process runs with: DEBUG off as in the
    web processes, the test client's host, no throttles (`extra` adds or overrides)."""
    return {
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "citerec.settings",
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-" + "x" * 50,
        "SECURE_SSL_REDIRECT": "0",
        "ALLOWED_HOSTS": "testserver",
        "API_ANON_RATE": "off",
        "API_USER_RATE": "off",
        "READER_INTEGRITY_RATE": "off",
        "LOG_LEVEL": "WARNING",
        **extra,
    }


def _clear_caches() -> None:
    """Forget every built page: each configured cache, and the API's per-process memories."""
    from django.core.cache import caches

    from api import page_cache

    for alias in caches:
        caches[alias].clear()
    page_cache._local.clear()
    page_cache._memo.clear()


def _time(client: Any, url: str, requests: int) -> tuple[list[float], list[float], int, int, bytes]:
    """Return the wall and CPU times in ms of uncached GETs of url, the statements of one,
    the status and the body. CPU is this process's (the web side, not PostgreSQL's)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _clear_caches()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)  # also warms the connection and the code paths
    # Counted now: the captured list is a slice of the log, which the next request resets.
    statements = len(queries)
    times, cpu = [], []
    for _ in range(requests):
        _clear_caches()
        started, cpu_started = time.perf_counter(), time.process_time()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - cpu_started) * 1000)
    return times, cpu, statements, response.status_code, response.content


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observations", type=int, default=100_000, help="in the whole table")
    parser.add_argument("--references", type=int, default=1_500, help="of the big paper")
    parser.add_argument("--requests", type=int, default=20, help="timed requests per page")
    parser.add_argument("--database", default=BENCH_DB, help="throwaway database name")
    parser.add_argument("--keep", action="store_true", help="keep the bench database")
    parser.add_argument("--reuse", action="store_true", help="time a kept database again")
    args = parser.parse_args()
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", args.database):
        raise SystemExit("--database: lower-case letters, digits and _ only")

    base = _base_url()
    if not args.reuse:
        _admin(base, f"DROP DATABASE IF EXISTS {args.database}")
        _admin(base, f"CREATE DATABASE {args.database}")
    os.environ.update(in_process_environment(_with_database(base, args.database)))
    for name in ("REDIS_URL", "CACHE_REDIS_URL"):
        os.environ.pop(name, None)  # in-process caches, cleared between requests
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    load_before = os.getloadavg()
    try:
        if not args.reuse:
            started = time.perf_counter()
            call_command("migrate", verbosity=0)
            migrated = time.perf_counter() - started
            # Whole papers of 40 (bench_admin's fixture needs a multiple of its paper size).
            rest = (
                -(-max(args.observations - args.references, 1) // REFS_PER_PAPER) * REFS_PER_PAPER
            )
            seed_admin_fixture(rest)
            _seed_big_paper(args.references)
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
            print(
                f"migrated in {migrated:.0f} s; seeded {rest + args.references:,} observations "
                f"({args.references:,} in arXiv:{PAPER}) in {time.perf_counter() - started:.0f} s"
            )
        user, _ = get_user_model().objects.get_or_create(
            username="bench", defaults={"is_staff": True, "is_superuser": True}
        )
        curator = Client()
        curator.force_login(user)
        anonymous = Client()
        queue = "/admin/curation/observation/?queue=live&q="
        pages: list[tuple[str, Any, str, str]] = [
            ("integrity page", anonymous, f"/paper/{PAPER}/integrity", ""),
            ("integrity JSON", anonymous, f"/paper/{PAPER}/integrity.json", ""),
            *(
                (f"admin search {term!r}", curator, queue + quote(term), "admin")
                for term in SEARCHES
            ),
            ("observations API, 50 rows", anonymous, f"/api/v1/observations?paper={PAPER}", "api"),
            (
                "observations API, 200 rows",
                anonymous,
                f"/api/v1/observations?paper={PAPER}&page_size=200",
                "api",
            ),
        ]
        pages.append(("observations API, last page", anonymous, _last_page(anonymous), "api"))
        print(
            f"{'page':36} {'status':>6} {'SQL':>4} {'found':>6} {'median ms':>10} {'p95 ms':>8}"
            f" {'CPU ms':>7}"
        )
        for name, client, url, kind in pages:
            times, cpu, statements, status, body = _time(client, url, args.requests)
            if status != 200:
                raise SystemExit(f"{name}: HTTP {status}")
            found = _found(kind, body)
            print(
                f"{name:36} {status:>6} {statements:>4} {found:>6} "
                f"{statistics.median(times):>10.1f} {_p95(times):>8.1f} {statistics.median(cpu):>7.1f}"
            )
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM curation_observation")
            total = cursor.fetchone()[0]
        load = " / ".join(
            " ".join(f"{x:.2f}" for x in avg) for avg in (load_before, os.getloadavg())
        )
        print(
            f"{total:,} observations; {args.requests} uncached requests per page; "
            f"load average before / after: {load}"
        )
    finally:
        connection.close()
        if not args.keep:
            _admin(base, f"DROP DATABASE IF EXISTS {args.database}")


def _last_page(client: Any) -> str:
    """Return the URL of the last 50-row page of the paper's observations (cursor paging)."""
    import json

    url = f"/api/v1/observations?paper={PAPER}&page_size=200"
    while True:
        page = json.loads(client.get(url).content)
        if page["next"] is None:
            return url.replace("page_size=200", "page_size=50")
        url = page["next"].replace("http://testserver", "")


def _found(kind: str, body: bytes) -> str:
    """Return how many rows a page shows: admin result rows, API results; '' for others."""
    if kind == "admin":
        return str(body.count(b'name="_selected_action"'))
    if kind == "api":
        import json

        return str(len(json.loads(body)["results"]))
    return ""


if __name__ == "__main__":
    main()
