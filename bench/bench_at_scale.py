"""Time the curator, reader and API pages, the dump and a resolution run on a database built by
bench/make_arxiv_db.py, the same way at every size, so the sizes can be compared.

Usage: python bench/bench_at_scale.py --database citerec_h_wholearxiv_100k [--requests 20]
           [--only SUBSTRING] [--no-writes]

Each measure is asked --requests times, a different object each time where the page is about an
object (a paper, a reference, a search term drawn from a reference), with the Django test client
in process, DEBUG off, throttles off, and every connection opened with the web processes'
statement_timeout (citerec/wsgi.py's `limit_statements`: checked, the script stops if the
setting did not reach the connection). Reader and API pages are cached for readers: before each
of their requests every configured cache and the API's per-process page memories are cleared
(bench_slow_pages._clear_caches), so each answer is built from the database. Admin pages are
never cached.

For each measure: p50 and p99 wall time in ms (p99 of 20 is the slowest but one: nearest rank),
the SQL statements of one request, whether any statement counted a whole large table (a
`COUNT(*)` with no WHERE on observations, resolutions, events, papers or cited works), and the
slowest statement's time. Then the dump's records/s (build_record + record_bytes, as
dump_records writes a shard) and a resolution run (`resolve --paper --sync`, one paper of 40
references per request): its references/s. Prints the database's rows and size, the machine
and the load average before and after. Writes nothing but the saves it measures (save-and-next
sets `parse_uncertain` on --requests references, by user bench, reason "bench_at_scale") and the
resolution runs (unless --no-writes).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_admin import _base_url  # noqa: E402
from bench_api import _with_database  # noqa: E402
from bench_slow_pages import _clear_caches, in_process_environment  # noqa: E402

BIG_TABLES = (
    "curation_observation",
    "curation_resolution",
    "curation_observationevent",
    "curation_resolutionevent",
    "curation_paper",
    "curation_citedwork",
    "curation_standingnotice",
    "pghistory_context",
)
_FULL_COUNT = re.compile(
    r'SELECT COUNT\(\*\) AS "__count" FROM "(' + "|".join(BIG_TABLES) + r')"\s*$', re.I
)


def _rows(table: str) -> int:
    """Return the planner's row count of a table."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples::bigint FROM pg_class WHERE relname = %s", [table])
        return int(cursor.fetchone()[0])


def _nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q * len(ordered)) - 1))]


class Measure:
    """One measure: a name, and for request i the (client, method, url, data) to send."""

    def __init__(
        self,
        name: str,
        make: Callable[[int], tuple[Any, str, str, dict[str, Any] | None]],
        cached: bool = False,
    ) -> None:
        self.name, self.make, self.cached = name, make, cached


def _run(measure: Measure, requests: int) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times: list[float] = []
    statements, full_count, slowest, status, slowest_sql = 0, False, 0.0, 0, ""
    for i in range(requests + 1):  # the first warms code paths and is not counted
        client, method, url, data = measure.make(i)
        if measure.cached:
            _clear_caches()
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.post(url, data) if method == "POST" else client.get(url)
            elapsed = (time.perf_counter() - started) * 1000
        status = response.status_code
        if status not in (200, 302):
            raise SystemExit(f"{measure.name}: HTTP {status} for {url}")
        if i == 0:
            continue
        times.append(elapsed)
        statements = max(statements, len(queries))
        for query in queries.captured_queries:
            counted = _FULL_COUNT.search(query["sql"].strip())
            # Below the admin's exact-count threshold a count is bounded: only a count of a
            # table at least that large is a whole-large-table count.
            full_count = full_count or bool(counted and _rows(counted.group(1)) >= 20_000)
            if float(query["time"]) * 1000 >= slowest:
                slowest, slowest_sql = float(query["time"]) * 1000, query["sql"]
    return {
        "p50": statistics.median(times),
        "p99": _nearest_rank(times, 0.99),
        "sql": statements,
        "full_count": full_count,
        "slowest": slowest,
        "status": status,
        "slowest_sql": slowest_sql,
    }


def _samples(requests: int, seed: int) -> dict[str, list[Any]]:
    """Draw the objects the requests are about: different ones for every request."""
    from django.db import connection

    n = requests + 1
    rng = random.Random(seed)
    with connection.cursor() as cursor:
        cursor.execute("SELECT max(id) FROM curation_paper")
        papers = cursor.fetchone()[0]
        ids = rng.sample(range(1, papers + 1), min(papers, 4 * n))
        cursor.execute(
            "SELECT id, arxiv_id FROM curation_paper WHERE id = ANY(%s) ORDER BY id", [ids]
        )
        paper_rows = cursor.fetchall()
        rng.shuffle(paper_rows)
        # References of those papers still to fix: the queue's own condition.
        cursor.execute(
            """
            SELECT o.id, o.paper_id, o.work_doi, o.work_arxiv_id, o.work_title, o.raw_text
            FROM curation_observation o
            WHERE o.paper_id = ANY(%s) AND o.retired_at IS NULL AND NOT o.no_canonical_record
              AND NOT o.pinned
            ORDER BY o.paper_id, o.reference_index
            """,
            [[row[0] for row in paper_rows]],
        )
        observations = cursor.fetchall()
        # The feed as a client polls it: since about a day of changes (2,000-2,800 references,
        # about 50-70 papers' lists), a different moment each request. A first full sync reads
        # the dump_records export instead (api/views/records.py).
        cursor.execute(
            "SELECT changed_at FROM curation_observation ORDER BY changed_at DESC LIMIT %s",
            [2000 + 40 * n],
        )
        newest = [row[0] for row in cursor.fetchall()]
        moments = [newest[min(2000 + 40 * i, len(newest)) - 1] for i in range(n)]
    rng.shuffle(observations)
    first_per_paper: dict[int, Any] = {}
    for row in observations:
        first_per_paper.setdefault(row[1], row)
    dois = [o[2] for o in observations if o[2]][:n]
    arxiv_ids = [o[3] for o in observations if o[3]][:n]
    titles = [o[4] for o in observations if o[4]]
    words = [w for t in titles for w in t.lower().split() if len(w) > 6][: n * 3]
    surnames = [
        o[5].split(".")[1].split(",")[0].strip()
        for o in observations
        if o[5] and o[5][1:3] == ". " and "." in o[5][3:]
    ][:n]
    phrases = [" ".join(t.split()[:2]) for t in titles][:n]
    return {
        "papers": [row[1] for row in paper_rows][:n],
        "observations": [str(o[0]) for o in list(first_per_paper.values())[:n]],
        "other_observations": [str(o[0]) for o in observations[-n:]],
        "dois": dois,
        "arxiv_ids": arxiv_ids,
        "words": words[::3][:n],
        "surnames": surnames,
        "phrases": phrases,
        "moments": moments,
    }


def _measures(s: dict[str, list[Any]], curator: Any, reader: Any, writes: bool) -> list[Measure]:
    admin = "/admin/curation/observation/"

    def at(key: str, i: int) -> Any:
        values = s[key]
        return values[i % len(values)]

    def get(client: Any, url: Callable[[int], str], cached: bool = False) -> Any:
        return lambda i: (client, "GET", url(i), None)

    measures = [
        Measure("queue: to fix, first page", get(curator, lambda i: admin)),
        Measure(
            "queue: one paper, first page",
            get(curator, lambda i: admin + f"?paper={at('papers', i)}"),
        ),
        Measure(
            "queue: next reference",
            get(curator, lambda i: admin + f"{at('other_observations', i)}/next/"),
        ),
        Measure(
            "observation page", get(curator, lambda i: admin + f"{at('observations', i)}/change/")
        ),
        Measure(
            "observation history",
            get(curator, lambda i: admin + f"{at('observations', i)}/history/"),
        ),
        Measure(
            "search: a title word",
            get(curator, lambda i: admin + "?queue=live&q=" + quote(at("words", i))),
        ),
        Measure(
            "search: two title words",
            get(curator, lambda i: admin + "?queue=live&q=" + quote(at("phrases", i))),
        ),
        Measure(
            "search: a surname",
            get(curator, lambda i: admin + "?queue=live&q=" + quote(at("surnames", i))),
        ),
        Measure(
            "search: arXiv id",
            get(curator, lambda i: admin + "?queue=live&q=" + quote(at("arxiv_ids", i))),
        ),
        Measure(
            "search: DOI", get(curator, lambda i: admin + "?queue=live&q=" + quote(at("dois", i)))
        ),
        Measure(
            "search: a common word",
            get(
                curator,
                lambda i: (
                    admin + "?queue=live&q=" + ["learning", "networks", "quantum", "theory"][i % 4]
                ),
            ),
        ),
        Measure("changelist: observations, live", get(curator, lambda i: admin + "?queue=live")),
        Measure("changelist: papers", get(curator, lambda i: "/admin/curation/paper/")),
        Measure(
            "changelist: papers, search id",
            get(curator, lambda i: "/admin/curation/paper/?q=" + quote(at("papers", i))),
        ),
        Measure("changelist: cited works", get(curator, lambda i: "/admin/curation/citedwork/")),
        Measure("changelist: resolutions", get(curator, lambda i: "/admin/curation/resolution/")),
        Measure("change log (history), page 1", get(curator, lambda i: admin + "log/")),
        Measure(
            "record page",
            get(reader, lambda i: f"/paper/{at('papers', i)}/citation-record"),
            cached=True,
        ),
        Measure(
            "record JSON",
            get(reader, lambda i: f"/paper/{at('papers', i)}/citation-record.json"),
            cached=True,
        ),
        Measure(
            "integrity page",
            get(reader, lambda i: f"/paper/{at('papers', i)}/integrity"),
            cached=True,
        ),
        Measure("API: papers", get(reader, lambda i: "/api/v1/papers"), cached=True),
        Measure(
            "API: observations of a paper",
            get(reader, lambda i: f"/api/v1/observations?paper={at('papers', i)}"),
            cached=True,
        ),
        Measure("API: cited works", get(reader, lambda i: "/api/v1/cited-works"), cached=True),
        Measure("API: notice events", get(reader, lambda i: "/api/v1/notice-events"), cached=True),
        Measure(
            "API: records?changed_since",
            get(
                reader,
                lambda i: "/api/v1/records?changed_since=" + quote(at("moments", i).isoformat()),
            ),
            cached=True,
        ),
    ]
    for measure in measures:  # the lambdas above ignore `cached`: set it here
        measure.cached = measure.name.startswith(("record", "integrity", "API"))
    if writes:
        revisions: dict[str, int] = {}

        def save_and_next(i: int) -> tuple[Any, str, str, dict[str, Any]]:
            from curation.models import Observation

            pk = at("observations", i)
            revision = revisions.get(pk) or Observation.objects.only("revision").get(pk=pk).revision
            return (
                curator,
                "POST",
                admin + f"{pk}/change/",
                {
                    "action": "set_state",
                    "status": "parse_uncertain",
                    "revision": revision,
                    "reason": "bench_at_scale",
                    "_next": "1",
                },
            )

        measures.append(Measure("save and next (set a state)", save_and_next))
    return measures


def _dump_rate(papers: list[str]) -> tuple[float, float]:
    """Return records/s and MB/s of building and serialising records as dump_records does."""
    from django.utils import timezone

    from curation.record.builder import build_record, record_bytes

    as_of = timezone.now()
    started, size = time.perf_counter(), 0
    for arxiv_id in papers:
        record = build_record(arxiv_id, as_of)
        if record is not None:
            size += len(record_bytes(record))
    elapsed = time.perf_counter() - started
    return len(papers) / elapsed, size / elapsed / 1e6


def _resolution(papers: list[str]) -> tuple[float, float, float]:
    """Return the p50 and p99 seconds of resolving one paper's references, and references/s.

    The first paper warms the resolver (its caches, the catalogue's pages) and is not counted."""
    import io

    from django.core.management import call_command

    from curation.models import Observation

    times, refs = [], 0
    for i, arxiv_id in enumerate(papers):
        count = Observation.objects.filter(
            paper__arxiv_id=arxiv_id, retired_at__isnull=True
        ).count()
        started = time.perf_counter()
        call_command(
            "resolve", paper=arxiv_id, sync=True, verbosity=0, reason="bench_at_scale",
            stdout=io.StringIO(), stderr=io.StringIO(),
        )  # fmt: skip
        if i:
            times.append(time.perf_counter() - started)
            refs += count
    return statistics.median(times), _nearest_rank(times, 0.99), refs / sum(times)


def _describe_database() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reltuples::bigint FROM pg_class WHERE relname = ANY(%s)",
            [list(BIG_TABLES)],
        )
        rows = dict(cursor.fetchall())
        cursor.execute("SELECT pg_database_size(current_database())")
        size = cursor.fetchone()[0]
    return (
        f"{rows.get('curation_observation', 0):,} observations, {rows.get('curation_paper', 0):,}"
        f" papers, {rows.get('curation_citedwork', 0):,} cited works, "
        f"{rows.get('curation_observationevent', 0) + rows.get('curation_resolutionevent', 0):,}"
        f" history events; {size / 2**30:.2f} GiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", required=True)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--only", default="", help="run the measures whose name has this")
    parser.add_argument(
        "--no-writes", action="store_true", help="skip save-and-next and resolution"
    )
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--show-sql", action="store_true", help="print each slowest statement")
    args = parser.parse_args()
    if args.requests < 20:
        raise SystemExit("--requests: at least 20 (p99 of fewer is meaningless)")

    os.environ.update(
        in_process_environment(
            _with_database(_base_url(), args.database), LOG_LEVEL="ERROR", CITEREC_OFFLINE="1"
        )
    )
    for name in ("REDIS_URL", "CACHE_REDIS_URL"):
        os.environ.pop(name, None)  # in-process caches, cleared between reader requests
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from citerec.statement_timeout import limit_statements

    limit_statements(settings.DATABASES, settings.WEB_STATEMENT_TIMEOUT_MS)  # as citerec/wsgi.py
    connection.close()
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        timeout = cursor.fetchone()[0]
    if timeout in ("0", ""):
        raise SystemExit("statement_timeout did not reach the connection")

    load_before = os.getloadavg()
    user, _ = get_user_model().objects.get_or_create(
        username="bench", defaults={"is_staff": True, "is_superuser": True}
    )
    curator, reader = Client(), Client()
    curator.force_login(user)
    samples = _samples(args.requests, args.seed)
    print(f"database {args.database}: {_describe_database()}")
    print(
        f"machine: {os.cpu_count()} cores, {platform.processor() or platform.machine()}; "
        f"statement_timeout {timeout}; {args.requests} requests per measure"
    )
    print(f"{'measure':38} {'p50 ms':>8} {'p99 ms':>8} {'SQL':>4} {'slowest':>8} full COUNT")
    for measure in _measures(samples, curator, reader, not args.no_writes):
        if args.only and args.only not in measure.name:
            continue
        r = _run(measure, args.requests)
        print(
            f"{measure.name:38} {r['p50']:>8.1f} {r['p99']:>8.1f} {r['sql']:>4} "
            f"{r['slowest']:>8.1f} {'YES' if r['full_count'] else 'no'}",
            flush=True,
        )
        if args.show_sql:
            print(f"    slowest statement: {r['slowest_sql'][:300]}")
            Path("/tmp/bench_at_scale_slowest.sql").write_text(r["slowest_sql"])
    if not args.only or "dump" in args.only:
        rate, mb = _dump_rate(samples["papers"] * 2)
        print(f"{'dump_records: records/s (MB/s)':38} {rate:>8.1f} {mb:>8.2f}")
    if not args.no_writes and (not args.only or "resolution" in args.only):
        p50, p99, rate = _resolution(samples["papers"][: args.requests + 1])
        print(
            f"{'resolution run, one paper: s; refs/s':38} {p50:>8.2f} {p99:>8.2f} {rate:>6.0f} refs/s"
        )
    load = " / ".join(" ".join(f"{x:.2f}" for x in avg) for avg in (load_before, os.getloadavg()))
    print(f"load average before / after: {load}")


if __name__ == "__main__":
    main()
