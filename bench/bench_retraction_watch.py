"""Time the Retraction Watch CSV reader, and the database import, on a generated file.

Usage: python bench/bench_retraction_watch.py [ROWS] [--db [--cited N]]

With --db the rows are also imported (first import, then a re-import of the same file) into a
throwaway test database, created and dropped by the script (the embedded PostgreSQL unless
DATABASE_URL is set). With --cited N, N references first cite N of the file's papers, and each
import is timed end to end as `import_retraction_watch` runs it: the rows, then the notices of
the cited works whose rows changed (`refresh_in_batches`, Retraction Watch only).
"""

from __future__ import annotations

import csv
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from curation.notices.parsers.retraction_watch import (  # noqa: E402
    COLUMNS,
    RetractionWatchRow,
    group_by_paper,
    read_retraction_watch,
    superseding_state,
)

NATURES = ["Retraction"] * 8 + ["Correction", "Expression of concern", "Reinstatement"]
REASONS = [
    "Concerns/Issues about Data",
    "Compromised Peer Review",
    "Investigation by Journal/Publisher",
    "Paper Mill",
    "Unreliable Results and/or Conclusions",
]


def write_sample(path: Path, rows: int, seed: int = 7) -> None:
    """Write a CSV shaped like the full export: trailing commas, odd bytes, empty tail."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([*COLUMNS, ""])
        for record_id in range(1, rows + 1):
            # About one paper in ten has a second notice (EoC upgraded, etc.).
            paper = record_id if rng.random() > 0.1 else max(1, record_id - rng.randint(1, 50))
            writer.writerow(
                [
                    str(record_id),
                    f"Placeholder title {record_id} on something measured",
                    "(B/T) Computer Science;(PHY) Engineering - Electrical;",
                    "Placeholder Univ; Placeholder Lab",
                    "Placeholder Journal of Things",
                    "Placeholder Press",
                    "Placeland",
                    "Pat Placeholder;Sam Standin",
                    "https://example.org/rw-post-placeholder",
                    "Research Article;",
                    f"{rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.randint(2000, 2026)} 0:00",
                    rng.choice([f"10.1016/j.bench.{record_id}", "unavailable", ""]),
                    rng.choice(["0", str(30_000_000 + record_id)]),
                    f"{rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.randint(1990, 2020)} 0:00",
                    f"10.1016/J.BENCH.PAPER.{paper}",
                    "0",
                    rng.choice(NATURES),
                    ";".join(rng.sample(REASONS, 3)) + ";",
                    rng.choice(["No", "Yes"]),
                    "See also: https://example.org/pubpeer-placeholder",
                    "",
                ]
            )
        writer.writerows([[""] * (len(COLUMNS) + 1)] * 190)
    # A few rows with bytes that are not UTF-8, as in the real file.
    data = path.read_bytes().replace(b"Placeholder Univ; Placeholder Lab", b"Universit\xe9", 50)
    path.write_bytes(data)


def make_citing(count: int) -> None:
    """Create one reference citing each of the first `count` papers of the file (by DOI)."""
    from django.utils import timezone

    from curation.audit import Actor, audited
    from curation.models import CitedWork, Observation, Paper

    now = timezone.now()
    with audited(Actor.command("bench"), "bench setup"):
        citing = Paper.objects.create(arxiv_id="9999.00001", title="Citing")
        works = CitedWork.objects.bulk_create(
            CitedWork(doi=f"10.1016/j.bench.paper.{k}") for k in range(1, count + 1)
        )
        Observation.objects.bulk_create(
            Observation(paper=citing, source="bench", reference_index=i, cited_work=work,
                        raw_text=f"A paper. {work.doi}", normalized_text=f"{i} {work.doi}",
                        source_observed_at=now, changed_at=now)
            for i, work in enumerate(works)
        )  # fmt: skip


def follow_up(changed_dois: set[str]) -> str:
    """Refresh the cited works whose rows changed, as the command does; return a summary."""
    from curation.audit import Actor
    from curation.notices.services import retraction_watch_follow_up

    start = time.perf_counter()
    done = retraction_watch_follow_up(changed_dois=changed_dois, actor=Actor.importer("bench"),
                                      reason="benchmark")  # fmt: skip
    seconds = time.perf_counter() - start
    changed = sum(o.notices_changed for o in done.outcomes)
    works = [*done.outcomes, *done.failed]
    return (f"{len(works):,} cited works refreshed ({changed:,} notices changed) in "
            f"{seconds:.2f} s = {len(works) / max(seconds, 1e-9):,.0f} works/s")  # fmt: skip


def bench_db_import(path: Path, rows: int, cited: int = 0) -> None:
    """Import the file twice into a throwaway database and print rows/s for each run (and,
    with `cited`, the follow-up refresh of the works cited)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.db import connection

    from curation.audit import Actor
    from curation.notices.services import retraction_watch_import

    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        if cited:
            make_citing(cited)
        for label in ("first import", "re-import"):
            start = time.perf_counter()
            outcome = retraction_watch_import(
                items=read_retraction_watch(path),
                file_name=str(path),
                actor=Actor.importer("bench"),
                reason="benchmark",
            )
            seconds = time.perf_counter() - start
            run = outcome.run
            print(
                f"db {label}: {run.rows_read:,} rows (created {run.created:,}, updated "
                f"{run.updated:,}, unchanged {run.unchanged:,}) in {seconds:.2f} s "
                f"= {rows / seconds:,.0f} rows/s"
            )
            if cited:
                print(f"   then {follow_up(outcome.changed_dois)}")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def main() -> None:
    args = [a for a in sys.argv[1:2] if not a.startswith("--")]
    rows = int(args[0]) if args else 70_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "retraction_watch.csv"
        write_sample(path, rows)
        size_mb = path.stat().st_size / 1e6
        start = time.perf_counter()
        parsed = [r for r in read_retraction_watch(path) if isinstance(r, RetractionWatchRow)]
        read_s = time.perf_counter() - start
        events = [e for r in parsed if (e := r.to_event()) is not None]
        states = [superseding_state(g) for g in group_by_paper(parsed)]
        total_s = time.perf_counter() - start
        if "--db" in sys.argv:
            cited = int(sys.argv[sys.argv.index("--cited") + 1]) if "--cited" in sys.argv else 0
            bench_db_import(path, rows, cited)
    redecoded = sum(r.redecoded for r in parsed)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"file: {rows:,} rows + 190 empty, {size_mb:.1f} MB; {redecoded} rows re-decoded")
    print(f"read:  {len(parsed):,} rows in {read_s:.2f} s = {len(parsed) / read_s:,.0f} rows/s")
    print(
        f"read + events + superseding: {len(events):,} events, {len(states):,} papers "
        f"in {total_s:.2f} s = {len(parsed) / total_s:,.0f} rows/s"
    )


if __name__ == "__main__":
    main()
