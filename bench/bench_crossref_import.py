"""Time import_crossref_works on generated Crossref works (bench/crossref_works.py).

    DATABASE_URL=postgresql://USER@127.0.0.1:5432/DB python bench/bench_crossref_import.py \
        [--form folder|tar|jsonl] [--keep-db] 100000 1000000

For each size: the works are generated once into bench/.data/, a fresh test database is made
(named after DATABASE_URL's, migrations applied: every index exists), the import runs once into
the empty catalogue and once more over the same works (every work updated), and each line
printed names the size, the input form, the seconds, works/s, and the machine (cores, load
average before the run, PostgreSQL version, the yardstick of bench/proc_cpu.py), the same way at
every size, with the CPU per work of this process and its workers (Python) and of its
PostgreSQL backend: on a shared machine the rate moves with others' load, the CPU much less.
"""

from __future__ import annotations

import argparse
import inspect
import os
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

from proc_cpu import process_cpu, yardstick  # noqa: E402


def machine(connection: object) -> str:
    """Say what the figures ran on: cores, load average now, Python, PostgreSQL."""
    with connection.cursor() as cursor:  # type: ignore[attr-defined]
        cursor.execute("SHOW server_version")
        server = cursor.fetchone()[0].split()[0]
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{os.cpu_count()} cores, load {load}, Python {platform.python_version()}, "
        f"PostgreSQL {server}"
    )


def cpu_now(connection: object) -> tuple[float, float]:
    """Return CPU seconds so far of this process with its reaped workers, and of its backend."""
    with connection.cursor() as cursor:  # type: ignore[attr-defined]
        cursor.execute("SELECT pg_backend_pid()")
        backend = process_cpu(cursor.fetchone()[0])
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system, backend


def peak_rss_mb() -> float:
    """Return the peak resident memory, MB, of this process and of its largest reaped worker."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, workers) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", type=int, default=[100_000])
    parser.add_argument("--form", choices=("folder", "tar", "jsonl"), default="folder")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--once", action="store_true", help="first import only")
    args = parser.parse_args()

    import django

    django.setup()
    from crossref_works import generate
    from django.db import connection

    from curation.resolution.services import catalogue_imports

    # The revision before the folder/tar path took only `path` (and read files one by one).
    parameters = inspect.signature(catalogue_imports.import_crossref_works).parameters
    options = {"processes": args.processes} if "processes" in parameters else {}
    for count in args.sizes:
        path = generate(count)[args.form]
        name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
        try:
            runs = ("first import",) if args.once else ("first import", "re-import")
            for label in runs:
                where = f"{machine(connection)}, yardstick {yardstick():.0f} ms"
                cpu = cpu_now(connection)
                started = time.perf_counter()
                report = catalogue_imports.import_crossref_works(path=path, **options)
                took = time.perf_counter() - started
                python, backend = (b - a for a, b in zip(cpu, cpu_now(connection), strict=True))
                print(
                    f"{count:>9,} works, {args.form:<6} {label:<13} {took:7.1f}s "
                    f"{count / took:8,.0f} works/s  CPU per work: Python {python / count * 1e6:.0f}"
                    f" + PostgreSQL {backend / count * 1e6:.0f} us  (added {report.inserted:,}, "
                    f"updated {report.updated:,}, bad {report.bad_count}), peak RSS "
                    f"{peak_rss_mb():.0f} MB  [{where}]",
                    flush=True,
                )
        finally:
            connection.close()
            connection.creation.destroy_test_db(name, verbosity=0)


if __name__ == "__main__":
    main()
