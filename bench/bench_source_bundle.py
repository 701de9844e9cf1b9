"""Bulk ingestion of an arXiv source bundle: extraction + parse, and end to end through Celery.

    python bench/bench_source_bundle.py [--papers 3000] [--processes 2] [--bundle PATH]
    python bench/bench_source_bundle.py --end-to-end [--no-extraction] [--e2e-papers 500]
        [--concurrency 2] [--catalogue N] [--redis redis://127.0.0.1:6379/14]
        [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

Prints figures; asserts nothing about time (bench/README-ingestion.md has the runs).

1. Extraction + parse, no database. A bundle of --papers e-prints is built with
   make_source_bundle.py (the 24 development e-prints repeated under made-up ids; --bundle
   reuses a bundle instead), indexed with `bundle_index`, and every item goes through
   `read_item` + `bibliography_from_eprint` (the production archive limits) in a pool of
   --processes worker processes taking chunks of --chunk-size items, as the chunk jobs do. Prints
   papers/s, references/s, per-paper median and p95 ms, failures by kind, and each pool process's
   memory (VmRSS sampled every 0.5 s and the kernel's VmHWM) at 10 %, 50 % and 100 % of the run.
2. End to end (--end-to-end). A throwaway database on the machine's PostgreSQL is created and
   migrated; one Celery worker with 2 processes (the Procfile's queues and concurrency, DEBUG
   off, CITEREC_OFFLINE=1) is started on Redis under a key prefix of this run; after a warm-up
   bundle, `manage.py ingest_source_bundle` is run on a bundle of --e2e-papers and the time until
   the bundle is finished is taken (index, queue, extraction, observations, resolution; chunk
   jobs acked without their work, "another worker holds it", are queued again as running the
   command again would, and counted). Then every paper's ingestion is checked (done, or
   pdf-only/failed with a reason) and a few records are built with `manage.py export_record`. The database and the Redis keys are removed at the
   end. The catalogue is empty unless --catalogue N loads bench_catalogue.py's synthetic one.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import queue
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from make_source_bundle import DEFAULT_SOURCES, build_bundle  # noqa: E402  (bench/ is on the path)
from proc_cpu import tree_cpu, yardstick  # noqa: E402

MIB = 1 << 20
MILESTONES = (0.10, 0.50, 1.00)
PROCFILE_QUEUES = "resolution,notices,crossref,ingestion,default"
# An item as it travels to a pool process: (arxiv_id, member, offset, size, kind).
ItemTuple = tuple[str, str, int, int, str]


# --- bundles ----------------------------------------------------------------------------------


def bundle_make(folder: Path, name: str, *, papers: int, pdfs: int, month: str) -> Path:
    """Build a bundle with make_source_bundle.py in `folder`; print what it holds."""
    path = folder / name
    started = time.perf_counter()
    kinds = build_bundle(path, papers=papers, pdfs=pdfs, sources=DEFAULT_SOURCES, month=month)
    print(f"built {path}: {kinds['gz']:,} .gz + {kinds['pdf']:,} .pdf, "
          f"{path.stat().st_size / MIB:,.0f} MiB in {time.perf_counter() - started:.1f} s",
          flush=True)  # fmt: skip
    return path


def bundle_items(path: Path) -> list[ItemTuple]:
    """Index the bundle; return the items a bundle ingestion would take (gz, tar, pdf)."""
    from curation.ingestion.bundle import bundle_index

    return [
        (item.arxiv_id, item.member, item.offset, item.size, item.kind)
        for item in bundle_index(path)
        if item.kind in ("gz", "tar", "pdf")
    ]


def chunked(items: Sequence[ItemTuple], size: int) -> Iterator[list[ItemTuple]]:
    """Yield the items in lists of `size` (the last one shorter)."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


# --- 1. extraction + parse ----------------------------------------------------------------------


@dataclass(frozen=True)
class PaperResult:
    """What reading one e-print gave: its wall and CPU time, references, and failure if any."""

    wall_ms: float
    cpu_ms: float
    references: int
    method: str  # where the list was found ('' on failure)
    failure: str  # '' when read; else 'pdf only', 'refused: <Error>', 'error: <Exception>'


def paper_extract(path: Path, item: ItemTuple, limits: Any) -> PaperResult:
    """Read one item by offset and extract its bibliography, as a bundle chunk job does."""
    from curation.ingestion.bundle import BundleItem, read_item
    from curation.ingestion.sources import entries_from_bibliography
    from curation.references.latex_source import (
        PdfOnlySource,
        SourceArchiveError,
        bibliography_from_eprint,
    )

    wall, cpu = time.perf_counter(), time.process_time()
    references, method, failure = 0, "", ""
    arxiv_id, member, offset, size, kind = item
    try:
        data = read_item(path, BundleItem(arxiv_id, member, offset, size, kind))
        name = f"arXiv:{arxiv_id} ({path.name}: {member})"
        bibliography = bibliography_from_eprint(data, name=name, limits=limits)
        references, method = len(entries_from_bibliography(bibliography)), bibliography.method
    except PdfOnlySource:
        failure = "pdf only"
    except SourceArchiveError as exc:
        failure = f"refused: {type(exc).__name__}"
    except Exception as exc:  # noqa: BLE001 - counted: the service would fail this paper
        failure = f"error: {type(exc).__name__}"
    return PaperResult((time.perf_counter() - wall) * 1e3, (time.process_time() - cpu) * 1e3,
                       references, method, failure)  # fmt: skip


def extraction_worker(path: Path, tasks: Any, results: Any) -> None:
    """Pool process: take chunks until None, put each chunk's results (after a 'ready')."""
    import curation.ingestion.bundle  # noqa: F401  (imported before the clock starts)
    import curation.references.latex_source  # noqa: F401
    from curation.ingestion.sources import archive_limits

    limits = archive_limits()  # CITEREC_MAX_SOURCE_*, as the services read them
    results.put(("ready", os.getpid()))
    while (chunk := tasks.get()) is not None:
        results.put(("chunk", [paper_extract(path, item, limits) for item in chunk]))


def memory_kib(pid: int) -> tuple[int, int]:
    """Return (VmRSS, VmHWM) of a process in KiB, from /proc/<pid>/status."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0])
    return found["VmRSS"], found["VmHWM"]


@dataclass
class MemoryWatch:
    """RSS of the pool processes, sampled as the run goes, and read at its milestones."""

    pids: list[int]
    start: dict[int, int] = field(default_factory=dict)  # VmRSS once ready, KiB
    sampled_max: dict[int, int] = field(default_factory=dict)  # max VmRSS sampled so far
    at: dict[float, dict[int, tuple[int, int]]] = field(default_factory=dict)  # (max, VmHWM)
    samples: int = 0

    def sample(self) -> None:
        """Read every process's current RSS."""
        self.samples += 1
        for pid in self.pids:
            rss, _ = memory_kib(pid)
            self.start.setdefault(pid, rss)
            self.sampled_max[pid] = max(rss, self.sampled_max.get(pid, 0))

    def milestones(self, done: int, total: int) -> None:
        """Record each milestone (share of papers done) reached, the first time it is."""
        for share in MILESTONES:
            if share not in self.at and done >= share * total:
                self.sample()
                self.at[share] = {
                    pid: (self.sampled_max[pid], memory_kib(pid)[1]) for pid in self.pids
                }


def extraction_run(path: Path, items: list[ItemTuple], processes: int, chunk_size: int
                   ) -> tuple[list[PaperResult], float, MemoryWatch]:  # fmt: skip
    """Run every item through a pool of `processes`; return results, wall seconds, memory."""
    context = multiprocessing.get_context("spawn")  # clean processes: RSS is the worker's own
    tasks, results = context.Queue(), context.Queue()
    pool = [context.Process(target=extraction_worker, args=(path, tasks, results), daemon=True)
            for _ in range(processes)]  # fmt: skip
    for process in pool:
        process.start()
    try:
        for _ in pool:
            results.get(timeout=120)  # each says ready once its imports are done
        watch = MemoryWatch([p.pid for p in pool if p.pid is not None])
        watch.sample()
        started = time.perf_counter()
        for chunk in chunked(items, chunk_size):
            tasks.put(chunk)
        done: list[PaperResult] = []
        last_sample = started
        while len(done) < len(items):
            try:
                done.extend(results.get(timeout=0.5)[1])
            except queue.Empty:
                pass
            if time.perf_counter() - last_sample >= 0.5:
                watch.sample()
                last_sample = time.perf_counter()
            watch.milestones(len(done), len(items))  # 100 %: read before the processes exit
        elapsed = time.perf_counter() - started
    finally:
        for _ in pool:  # only now: a process that has ended has no memory left to read
            tasks.put(None)
        for process in pool:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
    return done, elapsed, watch


def percentile(values: Sequence[float], share: float) -> float:
    """Return the value below which `share` of the values lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def extraction_print(results: list[PaperResult], elapsed: float, watch: MemoryWatch,
                     processes: int) -> None:  # fmt: skip
    """Print the extraction figures."""
    read = [r for r in results if not r.failure]
    references = sum(r.references for r in results)
    failures = Counter(r.failure for r in results if r.failure)
    methods = Counter(r.method for r in read)
    empty = sum(1 for r in read if not r.references)
    walls = [r.wall_ms for r in results]
    cpu = sum(r.cpu_ms for r in results) / len(results)
    print(f"  {processes} process(es): {len(results) / elapsed:6.1f} papers/s, "
          f"{references / elapsed:,.0f} references/s ({len(results):,} papers, {references:,} "
          f"references in {elapsed:.1f} s; load {os.getloadavg()[0]:.1f})")  # fmt: skip
    print(f"    per paper: median {statistics.median(walls):.1f} ms, p95 "
          f"{percentile(walls, 0.95):.1f} ms, max {max(walls):.0f} ms (wall in its process); "
          f"CPU {cpu:.1f} ms on average, so {processes} processes on {processes} idle cores "
          f"would do about {processes * 1e3 / cpu:.0f} papers/s")  # fmt: skip
    print(f"    failures: {dict(failures) or 'none'}; read with no reference: {empty}; "
          f"methods {dict(methods)}")  # fmt: skip
    for n, pid in enumerate(watch.pids, 1):
        # The larger of the sampled VmRSS and VmHWM (the kernel updates VmHWM lazily).
        marks = ", ".join(
            f"{share:.0%} {max(watch.at[share][pid]) / 1024:.1f}" for share in MILESTONES
        )
        print(f"    memory, process {n}: {watch.start[pid] / 1024:.1f} MiB when ready; max RSS "
              f"at {marks} MiB ({watch.samples} samples)")  # fmt: skip


def extraction(args: argparse.Namespace, folder: Path) -> None:
    """Part 1: extraction + parse of a bundle with a process pool, no database."""
    path = args.bundle or bundle_make(folder, "extraction.tar", papers=args.papers, pdfs=args.pdfs,
                                      month="2401")  # fmt: skip
    started = time.perf_counter()
    items = bundle_items(path)
    print(f"extraction + parse: {len(items):,} items of {path} indexed in "
          f"{time.perf_counter() - started:.2f} s; chunks of {args.chunk_size}", flush=True)  # fmt: skip
    rates = []
    for _ in range(args.repeat):
        results, elapsed, watch = extraction_run(path, items, args.processes, args.chunk_size)
        extraction_print(results, elapsed, watch, args.processes)
        rates.append(len(results) / elapsed)
    if args.repeat > 1:
        print(f"  median of {args.repeat}: {statistics.median(rates):.1f} papers/s "
              f"({', '.join(f'{r:.1f}' for r in rates)})", flush=True)  # fmt: skip


# --- 2. end to end ------------------------------------------------------------------------------


def django_start(args: argparse.Namespace, prefix: str) -> tuple[str, dict[str, str]]:
    """Set up Django on the machine's servers, create and migrate a throwaway database;
    return its name and the environment for the workers and commands."""
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "citerec.settings", "DATABASE_URL": args.database_url,
        "REDIS_URL": args.redis, "REDIS_KEY_PREFIX": prefix, "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50), "CITEREC_OFFLINE": "1",
    })  # fmt: skip
    import django
    from django.conf import settings

    settings.DATABASES["default"]["TEST"] = {"NAME": f"bench_bundle_{os.getpid()}"}
    django.setup()
    from django.db import connection

    started = time.perf_counter()
    name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    print(f"end to end: database {name} created and migrated in "
          f"{time.perf_counter() - started:.1f} s; Redis {args.redis}, key prefix {prefix}:",
          flush=True)  # fmt: skip
    s = connection.settings_dict
    url = f"postgresql://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{name}"
    return name, {**os.environ, "DATABASE_URL": url}


def catalogue_load(count: int) -> str:
    """Load bench_catalogue.py's synthetic arXiv snapshot of `count` papers; describe it."""
    if not count:
        return ("catalogue EMPTY (no --catalogue): every reference resolves against nothing, "
                "which is cheap")  # fmt: skip
    from bench_catalogue import generate
    from django.db import connection

    from curation.audit import Actor
    from curation.resolution.services.catalogue_imports import import_arxiv_snapshot

    started = time.perf_counter()
    import_arxiv_snapshot(path=generate(count), actor=Actor.importer("bench"), reason="bench")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE curation_paper")
    return (f"catalogue {count:,} synthetic papers (bench_catalogue.py, loaded in "
            f"{time.perf_counter() - started:.0f} s): made-up titles, so the e-prints' references "
            "find candidates to score but rarely a match")  # fmt: skip


def worker_start(env: dict[str, str], log: Path, concurrency: int) -> subprocess.Popen[bytes]:
    """Start the Procfile's worker (all queues; 2 processes there) in its own process group."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "citerec", "worker", "--pool=prefork",
             f"--concurrency={concurrency}", "-Q", PROCFILE_QUEUES, "--without-heartbeat", "--without-gossip",
             "--without-mingle", "-n", f"bundle-{os.getpid()}@%h", "--loglevel=WARNING"],
            cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True,
        )  # fmt: skip


def manage(env: dict[str, str], *command: str) -> subprocess.CompletedProcess[str]:
    """Run a manage.py command with the workers' environment; fail loudly if it fails."""
    done = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env,
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode:
        raise SystemExit(f"manage.py {' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return done


@dataclass
class Broker:
    """This run's Redis keys (kombu's, under the run's prefix) for the ingestion queue."""

    url: str
    prefix: str

    def idle(self, queues: tuple[str, ...] = ("ingestion",)) -> bool:
        """Return whether no job of these queues is queued, and none at work (none unacked)."""
        import redis

        client = redis.Redis.from_url(self.url)
        # kombu keeps a list per priority step: "ingestion" and "ingestion\x06\x16<n>".
        lists = [f"{self.prefix}:{q}{step}" for q in queues for step in ("", *(f"\x06\x16{n}" for n in (3, 6, 9)))]
        return not sum(client.llen(key) for key in lists) and not client.hlen(
            f"{self.prefix}:unacked"
        )

    def drained(self, timeout: float) -> float:
        """Wait until every Procfile queue is empty and nothing is at work; return when (perf)."""
        deadline = time.perf_counter() + timeout
        while not self.idle(tuple(PROCFILE_QUEUES.split(","))):
            if time.perf_counter() > deadline:
                raise SystemExit(f"queues not drained in {timeout:.0f} s")
            time.sleep(0.2)
        return time.perf_counter()


def chunks_requeue(path: Path) -> int:
    """Queue the bundle's unfinished chunks again, as `ingest_source_bundle` run again does."""
    from curation.ingestion import services

    _, pending = services.bundle_register(path=path)
    services.bundle_chunks_queue(chunk_ids=pending)
    return len(pending)


@dataclass
class Wait:
    """How a bundle's wait went: the bundle row, and the chunks queued again (lost jobs)."""

    bundle: Any
    rounds: int = 0
    requeued: int = 0
    drained: float = 0.0  # seconds from the command's start until every queue was empty


def bundle_wait(path: Path, broker: Broker, timeout: float, on_tick: Any = None) -> Wait:
    """Wait until every chunk of the bundle is done.

    Ends on the chunks, not only on `finished_at`, so a bundle whose flag is never set is
    reported rather than waited on for ever. When the queue has been empty with nothing at work
    for a second while chunks are still not done, their jobs were lost (a job that finds its
    chunk locked is acked as skipped): they are queued again, as an operator would by running
    the command again, and counted.
    """
    from curation.ingestion.models import SourceBundle

    wait = Wait(SourceBundle.objects.get(path=str(path.resolve())))
    deadline, idle_since = time.perf_counter() + timeout, None
    while (
        wait.bundle.finished_at is None and wait.bundle.chunks.filter(done_at__isnull=True).exists()
    ):
        now = time.perf_counter()
        if now > deadline:
            raise SystemExit(f"bundle not finished in {timeout:.0f} s: {wait.bundle.done} done, "
                             f"{wait.bundle.failed} failed of {wait.bundle.total}")  # fmt: skip
        if not broker.idle():
            idle_since = None
        elif idle_since is None:
            idle_since = now
        elif now - idle_since >= 1.0:
            wait.requeued += chunks_requeue(path)
            wait.rounds, idle_since = wait.rounds + 1, None
        if on_tick is not None:
            on_tick()
        time.sleep(0.2)
        wait.bundle.refresh_from_db()
    return wait


def bundle_ingest(env: dict[str, str], path: Path, broker: Broker, chunk_size: int,
                  timeout: float, on_tick: Any = None) -> tuple[Wait, float, float]:  # fmt: skip
    """Run ingest_source_bundle (queue only) and wait for the workers; return the wait,
    the seconds until the bundle was finished and the command's own seconds (index, queue)."""
    started = time.perf_counter()
    manage(env, "ingest_source_bundle", str(path), "--chunk-size", str(chunk_size))
    queued = time.perf_counter() - started
    wait = bundle_wait(path, broker, timeout, on_tick)
    finished = time.perf_counter() - started
    # What the chunks caused (notices follow-up jobs) counts too: the end is every queue empty.
    wait.drained = broker.drained(timeout) - started
    return wait, finished, queued


def ingestion_check(bundle: Any, arxiv_ids: list[str]) -> tuple[bool, list[str]]:
    """Check every paper of the bundle: done, or pdf-only/failed with a reason; print counts."""
    from curation.ingestion.models import ACTIVE_STATES, IngestionState, PaperIngestion
    from curation.models import Observation

    rows = PaperIngestion.objects.filter(paper__arxiv_id__in=arxiv_ids)
    states = Counter(rows.values_list("state", flat=True))
    missing = len(arxiv_ids) - sum(states.values())
    active = sum(states[s] for s in ACTIVE_STATES)
    no_reason = rows.filter(state__in=[IngestionState.FAILED, IngestionState.PDF_ONLY], error="")
    observations = Observation.objects.filter(paper__arxiv_id__in=arxiv_ids, source="arxiv_source")
    unresolved = observations.filter(retired_at__isnull=True, resolution__isnull=True).count()
    chunk_refs = sum(c.outcome.get("references", 0) for c in bundle.chunks.all())
    errors = [e for c in bundle.chunks.all() for e in c.outcome.get("errors", [])]
    ok = (not missing and not active and not no_reason.exists() and not unresolved
          and bundle.finished_at is not None and observations.count() == chunk_refs)  # fmt: skip
    print(f"    ingestions: {dict(states)}; no ingestion row: {missing}; still active: {active}; "
          f"failed/pdf-only without a reason: {no_reason.count()}; done with a note: "
          f"{rows.filter(state=IngestionState.DONE).exclude(error='').count()}")  # fmt: skip
    print(f"    observations {observations.count():,} (chunk outcomes say {chunk_refs:,}), "
          f"unresolved {unresolved}; bundle done {bundle.done} failed {bundle.failed} of "
          f"{bundle.total}, finished_at {'set' if bundle.finished_at else 'NOT SET'}; "
          f"chunk errors {len(errors)}; {'ok' if ok else 'MISMATCH'}")  # fmt: skip
    return ok, errors


def records_check(env: dict[str, str], arxiv_ids: list[str]) -> None:
    """Build a few papers' records with `manage.py export_record`; print what they hold."""
    from curation.models import Observation

    for arxiv_id in arxiv_ids:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "manage.py", "export_record", arxiv_id], cwd=ROOT,
                              env=env, capture_output=True, text=True)  # fmt: skip
        if done.returncode:
            print(f"    record {arxiv_id}: NOT SERVED: {done.stderr.strip()[-200:]}")
            continue
        record = json.loads(done.stdout)
        observed = Observation.objects.filter(
            paper__arxiv_id=arxiv_id, source="arxiv_source", retired_at__isnull=True
        ).count()
        states = {k: v for k, v in record["reference_resolution"]["state_counts"].items() if v}
        print(f"    record {arxiv_id}: {len(done.stdout):,} bytes, {len(record['outbound'])} "
              f"outbound ({observed} observations), states {states} "
              f"({time.perf_counter() - started:.1f} s with the command's start)")  # fmt: skip


def records_sample(arxiv_ids: list[str]) -> list[str]:
    """Return papers to build records for: the first and the middle one done, one PDF-only,
    and one that has no ingestion (its e-print failed with an exception), when there are."""
    from curation.ingestion.models import PaperIngestion

    states = dict(
        PaperIngestion.objects.filter(paper__arxiv_id__in=arxiv_ids).values_list(
            "paper__arxiv_id", "state"
        )
    )
    done = [a for a in arxiv_ids if states.get(a) == "done"]
    pdf = [a for a in arxiv_ids if states.get(a) == "pdf_only"]
    missing = [a for a in arxiv_ids if a not in states]
    return [*done[:1], *done[len(done) // 2 :][:1], *pdf[:1], *missing[:1]]


def redis_clean(url: str, prefix: str) -> int:
    """Delete this run's Redis keys (broker and cache, all under `prefix`); return how many."""
    import redis

    client = redis.Redis.from_url(url)
    keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
    if keys:
        client.delete(*keys)
    return len(keys)


def database_drop(name: str) -> None:
    """Drop the throwaway database (WITH FORCE: a worker's backend may linger a moment)."""
    import psycopg
    from django.db import connections

    connections.close_all()
    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def end_to_end(args: argparse.Namespace, folder: Path) -> None:
    """Part 2: ingest_source_bundle through one 2-process Celery worker, checked, cleaned up."""
    from bench_celery_resolve import BackendCpu, worker_kill

    prefix = f"bench-bundle-{os.getpid()}"
    name, env = django_start(args, prefix)
    worker = None
    try:
        print(f"  {catalogue_load(args.catalogue)}", flush=True)
        warm = bundle_make(folder, "warm.tar", papers=40 * 2, pdfs=0, month="2301")
        timed = bundle_make(folder, "e2e.tar", papers=args.e2e_papers, pdfs=args.e2e_pdfs,
                            month="2402")  # fmt: skip
        log, broker = folder / "worker.log", Broker(args.redis, prefix)
        worker = worker_start(env, log, args.concurrency)
        warmed, warm_s, _ = bundle_ingest(env, warm, broker, args.chunk_size, args.timeout)
        print(f"  warm-up: 80 papers in {warm_s:.1f} s (worker start-up included; "
              f"{warmed.requeued} lost chunk jobs queued again)", flush=True)  # fmt: skip
        before, backends = tree_cpu([worker.pid]), BackendCpu(name)
        wait, elapsed, queued = bundle_ingest(env, timed, broker, args.chunk_size, args.timeout,
                                              backends.read)  # fmt: skip
        used, pg_used = tree_cpu([worker.pid]) - before, backends.used()
        bundle = wait.bundle
        arxiv_ids = [item[0] for item in bundle_items(timed)]
        references = sum(c.outcome.get("references", 0) for c in bundle.chunks.all())
        papers, cpu = len(arxiv_ids), (used + pg_used) / len(arxiv_ids)
        print(f"  1 worker x {args.concurrency} processes: {papers / elapsed:6.1f} papers/s, "
              f"{references / elapsed:,.0f} references/s end to end ({papers:,} papers, "
              f"{references:,} references in {elapsed:.1f} s, of which the command "
              f"{queued:.1f} s; chunks of {args.chunk_size}; load {os.getloadavg()[0]:.1f})")  # fmt: skip
        print(f"    every queue drained (notices follow-up included) at {wait.drained:.1f} s: "
              f"{papers / wait.drained:.1f} papers/s, {references / wait.drained:,.0f} references/s")  # fmt: skip
        print(f"    lost chunk jobs (acked as 'another worker holds it') queued again: "
              f"{wait.requeued} in {wait.rounds} round(s) of {bundle.chunks.count()} chunks")  # fmt: skip
        print(f"    CPU per paper: worker {used / papers * 1e3:.0f} ms, PostgreSQL "
              f"{pg_used / papers * 1e3:.0f} ms (per reference {used / references * 1e3:.2f} + "
              f"{pg_used / references * 1e3:.2f} ms): 2 idle cores could do about "
              f"{2 / cpu:.0f} papers/s", flush=True)  # fmt: skip
        _, errors = ingestion_check(bundle, arxiv_ids)
        for error in errors[:3]:
            print(f"      {error[:200]}")
        records_check(env, records_sample(arxiv_ids))
        logged = log.read_text(errors="replace").count("ERROR")
        print(f"    worker log: {logged} ERROR line(s) ({log.stat().st_size:,} bytes)", flush=True)
    finally:
        if worker is not None:
            worker_kill(worker)
        database_drop(name)
        print(f"  cleaned up: database {name} dropped, {redis_clean(args.redis, prefix)} Redis "
              "keys deleted", flush=True)  # fmt: skip


# --- main ---------------------------------------------------------------------------------------


def arguments() -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=3_000, help="bundle size for part 1")
    parser.add_argument("--pdfs", type=int, default=0, help="PDF-only papers in part 1's bundle")
    parser.add_argument("--bundle", type=Path, help="reuse this bundle for part 1")
    parser.add_argument("--processes", type=int, default=2, help="pool processes for part 1")
    parser.add_argument("--chunk-size", type=int, default=20, help="papers per chunk (service: 20)")
    parser.add_argument("--repeat", type=int, default=1, help="part 1 runs (prints the median)")
    parser.add_argument("--no-extraction", action="store_true", help="skip part 1")
    parser.add_argument("--end-to-end", action="store_true", help="run part 2")
    parser.add_argument("--e2e-papers", type=int, default=500)
    parser.add_argument("--e2e-pdfs", type=int, default=5, help="PDF-only papers in part 2")
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes, part 2")
    parser.add_argument("--catalogue", type=int, default=0, help="synthetic catalogue papers")
    parser.add_argument("--database-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds to wait for a bundle")
    return parser.parse_args()


def main() -> None:
    """Run the parts asked for and print their figures."""
    args = arguments()
    # Stopped from outside (timeout, ^C): the finally blocks still stop workers and clean up.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    print(f"machine: {os.cpu_count()} cores, load {'/'.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"yardstick {yardstick():.0f} ms CPU (proc_cpu.yardstick: lower is a faster machine)",
          flush=True)  # fmt: skip
    folder = Path(tempfile.mkdtemp(prefix="bench-bundle-"))
    try:
        if not args.no_extraction:
            extraction(args, folder)
        if args.end_to_end:
            end_to_end(args, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"load at the end {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
