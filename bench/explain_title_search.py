"""EXPLAIN (ANALYZE, BUFFERS) the title searches one chunk of references runs, on an existing
bench database (read only: the connection is opened with default_transaction_read_only).

    .venv/bin/python bench/explain_title_search.py bench_celery_3000000 [refs=250] [seed=7]

A chunk of `refs` mixed references (bench_resolve.make_refs: 40% arXiv id, 40% title only, 20%
absent) built from random catalogue papers is resolved; every statement the resolver sends to
PostgreSQL is recorded, and the title searches (curation_paper / resolution_crossrefwork title
statements) are then run again under EXPLAIN (ANALYZE, BUFFERS). Prints each one's execution
time (planning included, the fastest of EXPLAIN_REPEAT=3 runs) and buffers, the totals, and the per-reference figure, with the load average.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ["CITEREC_OFFLINE"] = "1"
REPEAT = int(os.environ.get("EXPLAIN_REPEAT", "3"))


def main() -> None:
    db = sys.argv[1]
    n_refs = int(sys.argv[2]) if len(sys.argv) > 2 else 250
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    os.environ["DATABASE_URL"] = f"postgresql://postgres@127.0.0.1:5432/{db}"
    import django
    from django.conf import settings

    settings.DATABASES["default"]["OPTIONS"] = {
        "options": "-c default_transaction_read_only=on -c jit=off"
    }
    django.setup()
    from bench_resolve import make_refs
    from django.db import connection

    from curation.resolution.verdicts import resolve_raw_batch

    rng = random.Random(seed)
    with connection.cursor() as cursor:
        cursor.execute("SELECT max(id) FROM curation_paper")
        top = cursor.fetchone()[0]
        ids = rng.sample(range(1, top + 1), n_refs * 2)
        cursor.execute(
            "SELECT arxiv_id, title, first_author, year FROM curation_paper WHERE id = ANY(%s) "
            "AND in_catalogue ORDER BY id", [ids]
        )  # fmt: skip
        rows: list[Any] = cursor.fetchall()
    rng.shuffle(rows)
    refs = make_refs(rows[:n_refs], "mixed", rng)
    statements: list[tuple[str, Any]] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        statements.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        verdicts = resolve_raw_batch(list(enumerate(refs)))
    resolved = sum(1 for v in verdicts if v.get("status") in ("verified_exact", "verified_fuzzy"))
    searches = [(s, p) for s, p in statements if "to_tsquery" in s or "title_key = q.key" in s]
    total_ms = 0.0
    total_hit = total_read = 0
    for sql, params in searches:
        runs = []
        for _ in range(REPEAT):  # the fastest of a few: the machine is shared
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
                plan = cursor.fetchone()[0]
            plan = plan[0] if isinstance(plan, list) else json.loads(plan)[0]
            runs.append((plan["Execution Time"] + plan.get("Planning Time", 0.0), plan))
        ms, plan = min(runs, key=lambda r: r[0])
        top_node = plan["Plan"]
        total_ms += ms
        total_hit += top_node.get("Shared Hit Blocks", 0)
        total_read += top_node.get("Shared Read Blocks", 0)
        table = "paper" if "curation_paper" in sql else "crossref"
        table += (
            " key" if "to_tsquery" not in sql else " fts" if "title_key = q.key" not in sql else ""
        )
        n = next((len(p) for p in params if isinstance(p, list)), 0)
        print(f"  {table:<12} {n:4d} searches  {ms:8.1f} ms  rows {top_node['Actual Rows']:6}  "
              f"buffers hit {top_node.get('Shared Hit Blocks', 0):7} read "
              f"{top_node.get('Shared Read Blocks', 0):5}")  # fmt: skip
    print(f"{db}: {n_refs} refs, {resolved} verified, {len(searches)} title statements, "
          f"{total_ms:.1f} ms ({total_ms / n_refs:.3f} ms/ref), buffers hit {total_hit} read "
          f"{total_read}  [load {' '.join(f'{x:.1f}' for x in os.getloadavg())}]")  # fmt: skip
    if os.environ.get("EXPLAIN_DUMP"):
        Path(os.environ["EXPLAIN_DUMP"]).write_text(json.dumps(searches, default=str))
    if os.environ.get("EXPLAIN_SHOW"):
        for sql, params in searches:
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
                print("\n".join(r[0] for r in cursor.fetchall()))
    if os.environ.get("EXPLAIN_VERDICTS"):
        Path(os.environ["EXPLAIN_VERDICTS"]).write_text(
            "\n".join(json.dumps(v, sort_keys=True, default=str) for v in verdicts) + "\n"
        )


if __name__ == "__main__":
    main()
