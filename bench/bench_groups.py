"""Measure the group queue (issue 41) at scale: the queue's first pages, one decision and its
Undo on a large group, and how many references each decision settles.

Usage: DEBUG=1 CITEREC_OFFLINE=1 DATABASE_URL=postgresql://.../scratch python bench/bench_groups.py
       [--groups N] [--members M]   (no REDIS_URL: follow-up jobs run in process)

On the database DATABASE_URL names (migrated here; use a scratch database, never a real one):

1. `--groups` group rows (default 2,000,000, about what 10M references make at five references a
   group) with undecided counts drawn from a long-tailed distribution, inserted in one
   statement (the queue reads the group table only, never the references): then the planner's
   plan and the time of the queue's first page and of page 200, and of the queue's estimated
   size (what the screen shows);
2. one group of `--members` references (default 1,000), one per citing paper, imported through
   reference_list_import in two spellings: then one group decision (a link) on all of them, and
   its Undo, each timed, with the statements they ran.

Prints the figures; writes nothing outside that database.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "citerec.settings")

SILENT = "J. Smith. Silent data corruption in large training runs. 2023."
SILENT_OTHER = "Smith, J. (2023). Silent Data Corruption in Large Training Runs. In Proc. SC."




def _fill_groups(count: int) -> float:
    """Insert `count` groups with long-tailed undecided counts; return the seconds it took."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE curation_referencegroup CASCADE")
        # Undecided members: 1 / (uniform^1.5), capped: most groups 1-3, a few in the thousands.
        cursor.execute(
            """
            INSERT INTO curation_referencegroup (key, kind, label, size, undecided, noticed, revision)
            SELECT 'bench:' || i, 'text', 'reference text ' || i, u, u,
                   CASE WHEN i %% 97 = 0 THEN 1 ELSE 0 END, 1
              FROM (SELECT i, least(floor(1 / power(random() * 0.999 + 0.001, 1.5)), 50000)::int AS u
                      FROM generate_series(1, %s) AS i) s
            """,
            [count],
        )
        cursor.execute("ANALYZE curation_referencegroup")
    return time.perf_counter() - started


def _timed(label: str, run: object, repeat: int = 5) -> None:
    """Print the median time of `run()` over `repeat` runs."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    times.sort()
    print(f"  {label:<38} {times[len(times) // 2] * 1000:8.1f} ms (median of {repeat})")


def _queue_figures() -> None:
    from django.db import connection

    from curation.selectors import estimated_count, group_queue

    first = group_queue()[:51]
    deep = group_queue()[200 * 50 : 200 * 50 + 51]
    sql, params = first.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", params)
        plan = [row[0] for row in cursor.fetchall()]
    print("  plan of the first page:")
    for line in plan:
        print(f"    {line}")
    _timed("first page (51 rows)", lambda: list(first.all()))
    _timed("page 200 (51 rows)", lambda: list(deep.all()))
    _timed("queue size (estimated)", lambda: estimated_count(group_queue()))
    size, estimated = estimated_count(group_queue())
    print(f"  queue size shown: {'~' if estimated else ''}{size:,}")


def _large_group(members: int) -> None:
    from django.utils import timezone

    from curation.audit import Actor
    from curation.models import Paper, ReferenceGroup
    from curation.references.listed import ListedReference
    from curation.services import reference_groups, reference_list_import
    from curation.states import ChangeSource

    importer = Actor.importer("bench_groups")
    now = timezone.now()
    Paper.objects.get_or_create(
        arxiv_id="2301.00001",
        defaults={"title": "Silent data corruption in large training runs", "year": 2023,
                  "first_author": "smith", "in_catalogue": True, "submitted_at": now},
    )  # fmt: skip
    started = time.perf_counter()
    for n in range(members):
        reference_list_import(
            arxiv_id=f"2601.{n:05d}",
            references=[ListedReference(1, SILENT if n % 2 else SILENT_OTHER, label="1")],
            actor=importer,
            reason="bench_groups",
        )
    imported = time.perf_counter() - started
    group = ReferenceGroup.objects.get(key__startswith="title:2023:smith:silent")
    print(f"  imported {members:,} citing papers in {imported:.1f} s; group size {group.size:,}, "
          f"undecided {group.undecided:,}")  # fmt: skip
    curator = Actor(name="user:bench", source=ChangeSource.ADMIN)
    queued: list[int] = []
    # The request's own chunk, then each job's, timed apart: the jobs are run here one after
    # another (as one worker would) instead of being queued.
    reference_groups.queue_on_commit = lambda task, args: queued.append(args[0])  # type: ignore[assignment]
    decided = _with_jobs(
        "one group decision",
        lambda: reference_groups.group_decide(
            group_id=group.pk, action="link", value="arXiv:2301.00001",
            expected_revision=group.revision, actor=curator, reason="bench: every spelling",
        ),
        reference_groups.group_decision_continue,
        queued,
    )  # fmt: skip
    print(f"  decisions per citation settled: 1 / {decided:,} = {1 / max(decided, 1):.4f}")
    group.refresh_from_db()
    _with_jobs(
        "its Undo",
        lambda: reference_groups.group_undo(
            group_id=group.pk, expected_revision=group.revision, actor=curator
        ),
        reference_groups.group_undo_continue,
        queued,
    )


def _with_jobs(name: str, request: Any, job: Any, queued: list[int]) -> int:
    """Time the request, then each job it queued run here in turn; print and return the total."""
    with counted() as statements:
        started = time.perf_counter()
        first = request().done
        took = time.perf_counter() - started
        done, jobs = first, 0
        while queued:
            done += job(decision_id=queued.pop()).done
            jobs += 1
        total = time.perf_counter() - started
    print(
        f"  {name}: {done:,} references; the request {took:.2f} s ({first} references), then "
        f"{jobs} jobs: {total:.2f} s in all ({total / max(done, 1) * 1000:.1f} ms and "
        f"{statements[0] / max(done, 1):.1f} statements a reference)"
    )
    return done


@contextmanager
def counted() -> Iterator[list[int]]:
    """Count the statements run inside the block (into the list's one item)."""
    from django.db import connection

    count = [0]

    def wrapper(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        count[0] += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=2_000_000)
    parser.add_argument("--members", type=int, default=1_000)
    args = parser.parse_args()
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    print(f"group queue over {args.groups:,} groups:")
    print(f"  filled in {_fill_groups(args.groups):.1f} s")
    _queue_figures()
    print(f"a group of {args.members:,} references:")
    _large_group(args.members)


if __name__ == "__main__":
    main()
