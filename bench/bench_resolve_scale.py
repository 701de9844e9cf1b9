"""Resolution cost per reference by catalogue size, for two catalogue shapes (issue 43 item 2).

    source /work/tools/testenv.sh flat
    .venv/bin/python bench/bench_resolve_scale.py --shapes dense,real --sizes 100000,1000000 \
        [--reuse] [--refs 4000] [--rounds 3] [--data /work/bigdata-flat] [--build-only]

For each shape and size: a Crossref catalogue of that many works (bench/scale_catalogue.py: the
glutton-dev gold planted, a quarter of it left out, look-alikes or a realistic population
around it) in its own database `citerec_h_flat_<shape>_<size>`, migrated and loaded through the
product's import path (`import_crossref_works` on a folder of JSON lines files, two processes);
with --reuse a database already built for that shape and size is kept. Then the same reference
set (`--refs` glutton-dev dev-fold strings: those whose gold is planted, and those whose gold is
left out, which must stay unlinked) is resolved against every catalogue as `resolve_references`
does (`resolve_raw_batch`, batches of 200, one process, the workers' collector settings),
in interleaved rounds (every catalogue once per round, after a warm-up). Each line prints the
shape, the size, refs/s, the CPU per reference of this process (Python) and of its PostgreSQL
backend (bench/proc_cpu.py), the candidates read and validated per reference, precision and
recall, and the machine; the last lines give each shape's largest/smallest ratio of the median
CPU per reference.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ["CITEREC_OFFLINE"] = "1"
os.environ.setdefault("DEBUG", "0")  # as the workers run (see bench_resolve.py)
os.environ.setdefault("SECRET_KEY", "bench-resolve-scale-" + "k" * 50)

from proc_cpu import process_cpu, yardstick  # noqa: E402

VERIFIED = ("verified_exact", "verified_fuzzy")
BATCH = 200
WARM_UP = 400


def db_name(shape: str, size: int) -> str:
    """Return the database a shape and size is built in."""
    return f"citerec_h_flat_{shape}_{size}"


def use(name: str) -> None:
    """Point Django's default connection at database `name` (reconnecting)."""
    from django.db import connection

    connection.close()
    connection.settings_dict["NAME"] = name


def built(name: str) -> str | None:
    """Return what a database says it holds (its comment, set when its build finished)."""
    from django.db import connection

    use("postgres")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s",
            [name],
        )
        row = cursor.fetchone()
    return row[0] if row else None


def build(shape: str, size: int, data: Path, reuse: bool) -> None:
    """Make the shape's catalogue of `size` works in its own database (kept with --reuse)."""
    from django.core.management import call_command
    from django.db import connection
    from scale_catalogue import write_catalogue

    from curation.resolution.services.catalogue_imports import import_crossref_works

    name = db_name(shape, size)
    mark = f"{shape} {size} works"
    if reuse and built(name) == mark:
        print(f"{name}: kept ({mark})", flush=True)
        return
    started = time.perf_counter()
    folder = write_catalogue(shape, size, data / f"{shape}-{size}")
    wrote = time.perf_counter() - started
    use("postgres")
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cursor.execute(f'CREATE DATABASE "{name}"')
    use(name)
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    report = import_crossref_works(path=folder, processes=2)
    took = time.perf_counter() - started
    use("postgres")
    with connection.cursor() as cursor:
        cursor.execute(f"COMMENT ON DATABASE \"{name}\" IS '{mark}'")
    print(f"{name}: {report.inserted:,} works imported in {took:.0f}s ({report.inserted / took:,.0f}"
          f"/s; files written in {wrote:.0f}s), bad {report.bad_count}  [{machine()}]", flush=True)  # fmt: skip


def machine() -> str:
    """Say what a figure ran on: cores, load average, yardstick (bench/proc_cpu.py)."""
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores, load {load}, yardstick {yardstick():.0f} ms"


def backend_cpu() -> float:
    """Return the CPU seconds the default connection's PostgreSQL backend has used."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return process_cpu(cursor.fetchone()[0])


def resolve(refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Resolve the references as resolve_references does: batches of 200, one process."""
    from curation.resolution.verdicts import resolve_raw_batch

    verdicts: list[dict[str, Any]] = []
    for i in range(0, len(refs), BATCH):
        verdicts.extend(resolve_raw_batch([(r["id"], r["raw"]) for r in refs[i : i + BATCH]]))
    return verdicts


def timed(refs: list[dict[str, Any]]) -> tuple[float, float, float]:
    """Return wall seconds, Python CPU and PostgreSQL CPU of resolving refs."""
    backend = backend_cpu()
    cpu, started = time.process_time(), time.perf_counter()
    resolve(refs)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return wall, cpu, backend_cpu() - backend


class Counted:
    """Counts, while installed, the candidate rows the catalogue reads and the validations."""

    def __init__(self) -> None:
        self.rows = 0
        self.validations = 0
        self._undo: list[Callable[[], None]] = []

    def __enter__(self) -> Counted:
        from curation.catalogue import records as catalogue
        from curation.resolution import matching

        select, validate = catalogue._select, matching.validate

        def counting_select(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
            rows = select(sql, params)
            if "resolution_titleword" not in sql:
                self.rows += len(rows)
            return rows

        def counting_validate(*args: Any, **kwargs: Any) -> Any:
            self.validations += 1
            return validate(*args, **kwargs)

        catalogue._select, matching.validate = counting_select, counting_validate  # type: ignore[assignment]
        self._undo = [lambda: setattr(catalogue, "_select", select),
                      lambda: setattr(matching, "validate", validate)]  # fmt: skip
        return self

    def __exit__(self, *exc: object) -> None:
        for undo in self._undo:
            undo()


def quality(refs: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> str:
    """Return precision and recall (over references whose gold is planted), and the same
    without the strings the data set labels with two or more DOIs (at most one can be right)."""
    figures = []
    for label, keep in (
        ("", lambda r: True),
        (" without conflicting labels", lambda r: not r["conflicting"]),
    ):
        links = correct = present = 0
        for ref, verdict in zip(refs, verdicts, strict=True):
            if not keep(ref):
                continue
            present += ref["present"]
            if verdict["status"] in VERIFIED:
                links += 1
                correct += ref["present"] and (verdict.get("doi") or "").lower() == ref["doi"]
        figures.append(f"P {correct / links if links else 1.0:.4f} R {correct / present:.4f} "
                       f"({links - correct} wrong){label}")  # fmt: skip
    return ", ".join(figures)


def explain(refs: list[dict[str, Any]]) -> None:
    """Print each catalogue statement of one batch under EXPLAIN (ANALYZE, BUFFERS), and its
    plan with EXPLAIN_SHOW=1 in the environment."""
    import json

    from django.db import connection

    from curation.catalogue import records as catalogue

    statements: list[tuple[str, list[Any]]] = []
    select = catalogue._select

    def recording(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
        statements.append((sql, params))
        return select(sql, params)

    catalogue._select = recording  # type: ignore[assignment]
    try:
        resolve(refs)
    finally:
        catalogue._select = select  # type: ignore[assignment]
    total = 0.0
    for sql, params in statements:
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
            plan = cursor.fetchone()[0]
        plan = (plan if isinstance(plan, list) else json.loads(plan))[0]
        ms = plan["Execution Time"] + plan.get("Planning Time", 0.0)
        total += ms
        top = plan["Plan"]
        what = " ".join(sql.split())[:90]
        print(f"    {ms:8.1f} ms rows {top['Actual Rows']:6} hit {top.get('Shared Hit Blocks', 0):7}"
              f" read {top.get('Shared Read Blocks', 0):6}  {what}")  # fmt: skip
        if os.environ.get("EXPLAIN_SHOW"):
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
                print("\n".join(r[0] for r in cursor.fetchall()))
    print(f"    {total:.1f} ms for {len(refs)} references ({total / len(refs):.3f} ms/ref)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="dense,real")
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--refs", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=Path("/work/bigdata-flat"))
    parser.add_argument("--reuse", action="store_true", help="keep catalogues already built")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="EXPLAIN (ANALYZE, BUFFERS) one batch's statements per catalogue",
    )
    args = parser.parse_args()
    shapes = args.shapes.split(",")
    sizes = [int(s) for s in args.sizes.split(",")]

    import django

    django.setup()
    from real_catalogue import load_glutton
    from scale_catalogue import reference_set

    from citerec.celery import _collect_less  # the workers' process setup

    for shape in shapes:
        for size in sizes:
            build(shape, size, args.data, args.reuse)
    if args.build_only:
        return
    refs = reference_set(load_glutton(), args.refs)
    present = sum(r["present"] for r in refs)
    print(f"{len(refs):,} references: {present:,} with their gold planted, "
          f"{len(refs) - present:,} whose gold is left out (must stay unlinked)", flush=True)  # fmt: skip
    _collect_less()
    cost: dict[tuple[str, int], list[float]] = defaultdict(list)
    for shape in shapes:
        for size in sizes:  # warm-up, counts and quality, untimed
            use(db_name(shape, size))
            resolve(refs[:WARM_UP])
            with Counted() as counted:
                verdicts = resolve(refs)
            print(f"{shape:<5} {size:>10,} works: candidates read {counted.rows / len(refs):6.1f}"
                  f"/ref, validated {counted.validations / len(refs):6.1f}/ref, "
                  f"{quality(refs, verdicts)}", flush=True)  # fmt: skip
            if args.explain:
                explain(refs[:BATCH])
    for round_ in range(1, args.rounds + 1):
        for shape in shapes:
            for size in sizes:
                use(db_name(shape, size))
                backend_cpu()  # connect before timing
                wall, python, postgres = timed(refs)
                cost[(shape, size)].append((python + postgres) / len(refs))
                print(f"round {round_} {shape:<5} {size:>10,} works: {len(refs) / wall:6,.0f} "
                      f"refs/s, CPU per ref Python {python / len(refs) * 1e6:5.0f} + PostgreSQL "
                      f"{postgres / len(refs) * 1e6:5.0f} us  [{machine()}]", flush=True)  # fmt: skip
    for shape in shapes:
        small, large = (statistics.median(cost[(shape, s)]) for s in (min(sizes), max(sizes)))
        print(
            f"{shape}: median CPU per ref {small * 1e6:.0f} us at {min(sizes):,}, "
            f"{large * 1e6:.0f} us at {max(sizes):,}: ratio {large / small:.2f}"
        )


if __name__ == "__main__":
    main()
