"""Resolve a run through the Procfile's Celery workers and print references/s end to end.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/citerec_bench REDIS_URL=redis://127.0.0.1:6379/1 \
        python bench/bench_celery_resolve.py --catalogue 3000000 --refs 10000 [--layouts 1x2] [--kill]

A database `bench_celery_<catalogue>` is created (kept between runs: the generated arXiv
snapshot of bench_catalogue.py is imported once). Each layout starts from the catalogue alone:
what earlier runs wrote (observations, resolutions, works, notices, history) is emptied first,
so every run measures the same database (--keep-runs keeps it).

The workers are the Procfile's, started from their own lines as production runs them: the
`worker` process (its count and concurrency by --layouts: 1x2 is one worker of two processes)
and every other Celery worker line once (`notices`). For each layout the script makes --refs new
observations (mixed references as in bench_resolve.py: 40% with an arXiv id, 40% title only,
20% absent titles and author fragments), warms the workers with a small run, then times the run
from dispatch (`run_dispatch`) until its status is done, and on until everything it caused is
finished: every queue empty and no job taken and unacknowledged (the standing notices of the
newly linked works, `refresh_works` on the notices pool). It prints both figures, the CPU per
reference of each pool and of PostgreSQL (split by the sessions' application_name), the notices'
share of it all, and checks that every observation was resolved exactly once. --queues resolution
runs the `worker` process alone on that queue: the figure before follow-up work was counted.

--kill: a 2-process worker is killed with SIGKILL (main process and its pool) a few seconds
into the run and a new one started at once; the lost chunks come back after the broker's
visibility timeout (--visibility, 30 s by default here; 600 s in production settings).
"""

from __future__ import annotations

import argparse
import atexit
import functools
import os
import random
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from proc_cpu import process_cpu, tree_cpu, yardstick  # noqa: E402  (bench/ is on the path from here)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ["CITEREC_OFFLINE"] = "1"

LAYOUTS = {"1x1": (1, 1), "1x2": (1, 2), "2x2": (2, 2)}


def procfile_workers() -> list[str]:
    """Return the Procfile's Celery worker processes (e.g. `worker`, `notices`), in file order."""
    names = []
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if " worker " in f" {command} " and "celery" in command:
            names.append(name.strip())
    return names


# What a Procfile worker line reads for its number of processes (`--concurrency ${VAR:-n}`).
_CONCURRENCY_VARIABLE = re.compile(r"--concurrency \$\{(\w+):-\d+\}")


def worker_start(
    env: dict[str, str], process: str, concurrency: int | None = None, queues: str | None = None
) -> subprocess.Popen[bytes]:
    """Start the Procfile's worker process `process` as production does (its own line, queues
    and flags), in its own process group; `concurrency` and `queues` override its defaults."""
    from tests.procfile import procfile_line, start_procfile_process

    env = dict(env)
    if concurrency is not None:
        found = _CONCURRENCY_VARIABLE.search(procfile_line(process))
        if found is None:
            raise SystemExit(f"Procfile's {process} line has no --concurrency ${{VAR:-n}}")
        env[found.group(1)] = str(concurrency)
    if queues is not None:
        env["CELERY_QUEUES"] = queues
    return start_procfile_process(
        process, env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip


@functools.cache
def broker() -> tuple[Any, str]:
    """Return a client of the Celery broker's Redis (one for the run: it is polled every 0.2 s)
    and the deployment's key prefix."""
    from django.conf import settings
    from redis import Redis

    prefix = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("global_keyprefix", "")
    return Redis.from_url(settings.CELERY_BROKER_URL), str(prefix)


def queues_drained() -> bool:
    """Return whether every Celery queue is empty and no job is taken and unfinished.

    Jobs are acknowledged late, so a job a worker is running stays in the broker's `unacked`
    hash until it ends; the jobs it queues are in their lists before that.
    """
    from django.conf import settings

    client, prefix = broker()
    keys = [
        f"{prefix}{name}{suffix}"
        for name in settings.CELERY_QUEUE_NAMES
        for suffix in ("", "\x06\x163", "\x06\x166", "\x06\x169")
    ]  # kombu's priority lists
    pipe = client.pipeline()
    for key in keys:
        pipe.llen(key)
    pipe.hlen(f"{prefix}unacked")
    return not any(pipe.execute())


def backlog_queued(jobs: int) -> None:
    """Queue `jobs` notice refresh jobs of 250 cited works each (a Retraction Watch import's or
    a day's Crossref refreshes): work the notices pool has to get through."""
    from curation.models import CitedWork
    from curation.notices.services.refresh_jobs import REFRESH_BATCH, refreshes_queue

    # One job per call: the product's own road to the queue, one batch of works at a time.
    works = list(CitedWork.objects.order_by("pk").values_list("pk", flat=True)[:REFRESH_BATCH])
    for _ in range(jobs if works else 0):
        refreshes_queue(works, reason="bench backlog")


def notices_waiting() -> int:
    """Return how many jobs wait on the notices queue."""
    client, prefix = broker()
    return int(client.llen(f"{prefix}notices"))


def wait_drained(started: float, on_tick: Any = None) -> float:
    """Wait until every queue is drained (seen twice, 0.2 s apart); return the time since
    `started`."""
    seen = 0
    while seen < 2:
        seen = seen + 1 if queues_drained() else 0
        if on_tick is not None:
            on_tick()
        if time.perf_counter() - started > 3600:
            raise SystemExit("the queues did not drain in an hour")
        time.sleep(0.2)
    return time.perf_counter() - started


def worker_kill(worker: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    """Stop a worker and its pool processes."""
    try:
        os.killpg(worker.pid, sig)
    except ProcessLookupError:
        return
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()


def backend_cpu(database: str) -> dict[int, float]:
    """Return the CPU time used so far by each PostgreSQL backend connected to `database`
    (other than this script's own connection); the server runs on this machine."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, application_name FROM pg_stat_activity WHERE datname = %s "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'",  # not autovacuum
            [database],
        )
        sessions = cursor.fetchall()
    found = {}
    for pid, application in sessions:
        try:
            found[pid] = process_cpu(pid)
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        BACKEND_NAMES[pid] = application
    return found


# Each backend's application_name: a worker names its sessions after its node ("citerec
# notices@host", citerec/celery.py), so the server's CPU splits by worker pool.
BACKEND_NAMES: dict[int, str] = {}


class BackendCpu:
    """The CPU the bench database's backends use from now on, read at every poll of the run:
    a backend that ends meanwhile (a worker reconnects past CONN_MAX_AGE) keeps what it had
    used when last read, one that starts counts from zero."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.first = backend_cpu(database)
        self.last = dict(self.first)

    def read(self, *_: Any) -> None:
        """Read every backend again (a run_timed tick)."""
        self.last.update(backend_cpu(self.database))

    def used_by(self, prefix: str) -> float:
        """Return the CPU seconds used since this started by backends whose application_name
        starts with `prefix` (call `used` first: it reads them all once more)."""
        return sum(
            cpu - self.first.get(pid, 0.0)
            for pid, cpu in self.last.items()
            if BACKEND_NAMES.get(pid, "").startswith(prefix)
        )

    def used(self) -> float:
        """Return the CPU seconds used since this started."""
        self.read()
        return sum(cpu - self.first.get(pid, 0.0) for pid, cpu in self.last.items())


def runtime_role_make(database: str) -> tuple[str, str]:
    """Make this run's runtime role (grant_runtime_role, as a release does); return its name
    and password."""
    from curation.db_roles import grant_runtime_role

    role, password = f"citerec_bench_{secrets.token_hex(4)}", secrets.token_hex(16)
    grant_runtime_role(role, password=password)
    return role, password


def runtime_role_drop(role: str) -> None:
    """Drop the run's runtime role (its sessions have ended with the workers)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f'DROP OWNED BY "{role}"')
        cursor.execute(f'DROP ROLE "{role}"')


def observations_make(refs: list[str], citing_id: str) -> None:
    """Create one never-resolved observation per reference under a new citing paper."""
    from django.utils import timezone

    from curation.audit import Actor, audited
    from curation.models import Observation, Paper

    with audited(Actor.command("bench"), "bench setup"):
        citing = Paper.objects.create(arxiv_id=citing_id, title="Citing")
        now = timezone.now()
        Observation.objects.bulk_create(
            (Observation(paper=citing, source="bench", reference_index=i, raw_text=raw,
                         normalized_text=f"{i} {raw}", source_observed_at=now, changed_at=now)
             for i, raw in enumerate(refs)), batch_size=2000,
        )  # fmt: skip
    analyze_written_tables()


# The tables a run reads and writes. Production servers run autovacuum, which re-analyzes a table
# once a tenth of it changed; this machine's server has autovacuum off, and with statistics from
# before the bench's own inserts the planner seq-scans (e.g. every standing notice to find one
# work's observations), which measures a server nobody runs.
_WRITTEN_TABLES = ("curation_observation", "curation_resolution", "curation_standingnotice",
                   "curation_citedwork", "record_recordversion")  # fmt: skip


# What runs leave behind. Each layout starts from the same state, the issue's "3M catalogue and
# 20,000 observations": without this, every run adds 20,400 observations, their resolutions,
# works, notices and history to the kept database, and later runs measure a bigger one.
_RUN_TABLES = ("curation_observationevent", "curation_resolutionevent",
               "curation_standingnoticeevent", "curation_citedworkevent", "curation_observation",
               "curation_resolution", "curation_standingnotice", "curation_citedwork",
               "record_recordversion", "resolution_resolutionchunk", "resolution_resolutionrun",
               "resolution_pinneddisagreement", "notices_sourcereceipt", "notices_noticeevent",
               "notices_noticereview", "ingestion_paperingestion", "pghistory_context")  # fmt: skip


def forget_earlier_runs() -> None:
    """Empty what earlier runs wrote (the bench database's catalogue stays)."""
    from django.db import connection

    with connection.cursor() as cursor:
        # The runs' citing papers stay: a few rows among the catalogue's millions.
        cursor.execute(f"TRUNCATE {', '.join(_RUN_TABLES)}")
    analyze_written_tables()


def analyze_written_tables() -> None:
    """ANALYZE what the bench wrote, as autovacuum would have by now in production."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in _WRITTEN_TABLES:
            cursor.execute(f"ANALYZE {table}")


def run_timed(citing_id: str, chunk_size: int, on_tick: Any = None) -> tuple[Any, float, float]:
    """Create a run over one citing paper, dispatch it, and wait until it is done; return the
    run, the seconds it took, and when it was dispatched (time.perf_counter)."""
    from curation.audit import Actor
    from curation.resolution import selectors, services
    from curation.resolution.models import ResolutionRun, RunStatus
    from curation.resolution.services import run_dispatch

    run = services.run_create(
        observations=selectors.select_observations(paper_id=citing_id),
        selection={"paper": citing_id}, actor=Actor.command("bench"), reason="bench",
        chunk_size=chunk_size,
    )  # fmt: skip
    started = time.perf_counter()
    run_dispatch(run_id=run.pk)
    while True:
        run = ResolutionRun.objects.get(pk=run.pk)
        elapsed = time.perf_counter() - started
        if run.status == RunStatus.DONE:
            return run, elapsed, started
        if on_tick is not None:
            on_tick(elapsed, run)
        if elapsed > 3600:
            raise SystemExit(f"run {run.pk} did not finish in an hour: {run}")
        time.sleep(0.2)


def resolved_once(run: Any) -> str:
    """Check every observation of the run was resolved exactly once; return a short verdict."""
    from django.apps import apps

    from curation.models import Resolution

    ids = [i for c in run.chunks.all() for i in c.observation_ids]
    resolutions = Resolution.objects.filter(observation_id__in=ids).count()
    events = (
        apps.get_model("curation", "ResolutionEvent")
        .objects.filter(pgh_obj__observation_id__in=ids)
        .count()
    )
    ok = run.done == run.total == len(ids) == resolutions == events
    return (
        f"{'ok' if ok else 'MISMATCH'}: done {run.done}/{run.total}, "
        f"{resolutions} resolutions, {events} history inserts"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--catalogue", type=int, default=100_000)
    parser.add_argument("--refs", type=int, default=20_000)
    parser.add_argument("--chunk-size", type=int, default=250)
    parser.add_argument(
        "--layouts",
        default="1x2",
        help="Procfile `worker` processes x their concurrency (1x1,1x2,2x2); "
        "the Procfile's other workers run once each as it sets them",
    )
    parser.add_argument(
        "--queues",
        default=None,
        help="only the `worker` process, on these queues (e.g. `resolution`: "
        "the figure before follow-up work was counted)",
    )
    parser.add_argument("--notices-backlog", type=int, default=0,
                        help="queue this many notice refresh jobs (250 works each) just before "
                             "the run: a resolution run must not wait behind them")  # fmt: skip
    parser.add_argument("--kill", action="store_true", help="also the run with one kill -9")
    parser.add_argument("--visibility", type=int, default=30)
    parser.add_argument("--keep-runs", action="store_true",
                        help="keep earlier runs' observations, works and history (a bigger "
                             "database each run) instead of starting from the catalogue")  # fmt: skip
    args = parser.parse_args()
    # Stopped from outside (timeout, ^C): still stop the workers it started (finally blocks).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))

    # One key for this process and the workers: the runtime role's history contexts are signed
    # with it, and grant_runtime_role installs it in the database (curation/history.py).
    os.environ["SECRET_KEY"] = secret = secrets.token_urlsafe(50)
    import django
    from django.conf import settings

    settings.DATABASES["default"]["TEST"] = {"NAME": f"bench_celery_{args.catalogue}"}
    django.setup()
    from bench_catalogue import generate
    from bench_resolve import make_refs
    from django.db import connection

    from citerec.celery import app
    from curation.audit import Actor
    from curation.models import Paper
    from curation.resolution.services.catalogue_imports import import_arxiv_snapshot

    name = connection.creation.create_test_db(
        verbosity=0, autoclobber=True, keepdb=True, serialize=False
    )
    if Paper.objects.filter(arxiv_id__contains=".").count() < args.catalogue:
        import_arxiv_snapshot(path=generate(args.catalogue), actor=Actor.importer("bench"),
                              reason="bench")  # fmt: skip
    app.conf.task_always_eager = False
    app.conf.broker_url = os.environ["REDIS_URL"]
    rng = random.Random(11)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE curation_paper")
        # The same papers every time (not random()): which references a run gets changes its
        # cost per reference, so runs of one layout, or of two revisions, are only comparable
        # on the same sample. The runs' own citing papers are left out.
        cursor.execute(
            "SELECT arxiv_id, title, first_author, year FROM curation_paper "
            "WHERE arxiv_id LIKE '%%.%%' AND title <> 'Citing' "
            "ORDER BY md5(arxiv_id) LIMIT %s", [args.refs]
        )  # fmt: skip
        sample: list[Any] = cursor.fetchall()
    # The workers connect as production's do: as a runtime role (README "Database roles"),
    # whose every history context the database checks, made for this run and dropped after it.
    role = runtime_role_make(name)
    atexit.register(runtime_role_drop, role[0])
    s = connection.settings_dict
    url = f"postgresql://{role[0]}:{role[1]}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{name}"
    # The workers run as in production: DEBUG off. With DEBUG on, Django keeps the text of every
    # statement (a chunk's writes carry its rows as JSON documents of hundreds of kilobytes).
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "0", "SECRET_KEY": secret,
           "CITEREC_OFFLINE": "1", "DJANGO_SETTINGS_MODULE": "citerec.settings",
           # This checkout's code, not the one the virtualenv was installed from (a worktree
           # sharing another checkout's venv imports that checkout's packages otherwise).
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    print(f"catalogue {args.catalogue:,} papers, {args.refs:,} references per run "
          f"(mixed), chunks of {args.chunk_size}; machine yardstick {yardstick():.0f} ms CPU "
          "(proc_cpu.yardstick: lower is a faster machine)", flush=True)  # fmt: skip
    tag = f"{int(time.time()) % 100000:05d}"
    for n, layout in enumerate(filter(None, args.layouts.split(","))):
        count, concurrency = LAYOUTS[layout]
        if not args.keep_runs:
            forget_earlier_runs()
        workers = [worker_start(env, "worker", concurrency, args.queues) for _ in range(count)]
        others = (
            []
            if args.queues
            else [
                worker_start(env, process) for process in procfile_workers() if process != "worker"
            ]
        )
        try:
            # Each run's own citing ids: a layout may be given twice.
            warm = f"9{tag[1:]}.{n:02d}{layout[0]}{layout[2]}1"
            observations_make(make_refs(sample[: 4 * count * concurrency * 50], "mixed", rng), warm)
            run_timed(warm, 50)  # workers started, resolver loaded in every process
            if not args.queues:
                wait_drained(time.perf_counter())  # and what the warm-up run queued
            citing = f"9{tag[1:]}.{n:02d}{layout[0]}{layout[2]}0"
            observations_make(make_refs(sample, "mixed", rng), citing)
            # CPU spent by the workers and by their PostgreSQL backends: the cost per reference,
            # which other load on the cores changes much less than refs/s.
            backlog_queued(args.notices_backlog)
            pids, other_pids = [w.pid for w in workers], [w.pid for w in others]
            before, other_before = tree_cpu(pids), tree_cpu(other_pids)
            backends = BackendCpu(name)
            run, elapsed, started = run_timed(citing, args.chunk_size, backends.read)
            waiting = notices_waiting()
            # Finished when everything the run caused is finished (notices, ...), as deployed;
            # with --queues the other queues' jobs are left waiting and not counted.
            drained = elapsed if args.queues else wait_drained(started, backends.read)
            used, other_used = tree_cpu(pids) - before, tree_cpu(other_pids) - other_before
            pg_used, pg_notices = backends.used(), backends.used_by("citerec notices@")
        finally:
            for worker in workers + others:
                worker_kill(worker)
        per_ref = 1e3 / run.total
        print(f"  {count} worker(s) x {concurrency} process(es) "
              f"[{args.queues or ', '.join(procfile_workers())}]: "
              f"{run.total / drained:7,.0f} refs/s end to end ({run.total:,} in {drained:.1f} s, "
              f"run done at {elapsed:.1f} s: {run.total / elapsed:,.0f} refs/s); CPU per "
              f"reference: worker {used * per_ref:.2f} ms, other workers {other_used * per_ref:.2f}"
              f" ms, PostgreSQL {pg_used * per_ref:.2f} ms ({pg_notices * per_ref:.2f} for the "
              f"notices pool); notices share of all CPU "
              f"{(other_used + pg_notices) / max(used + other_used + pg_used, 1e-9):.0%}; "
              f"load {os.getloadavg()[0]:.1f}; {resolved_once(run)}"
              + (f"; {args.notices_backlog} notice jobs queued before it, {waiting} still "
                 "waiting when it was done" if args.notices_backlog else ""), flush=True)  # fmt: skip
    if args.kill:
        kill_run(env, sample, rng, tag, args)


def kill_run(env: dict[str, str], sample: list[Any], rng: random.Random, tag: str,
             args: argparse.Namespace) -> None:  # fmt: skip
    """Resolve a run on one 2-process worker, kill -9 it mid-run, let a new one finish."""
    from bench_resolve import make_refs

    env = {**env, "CELERY_VISIBILITY_TIMEOUT": str(args.visibility)}
    citing = f"8{tag[1:]}.00000"
    if not args.keep_runs:
        forget_earlier_runs()
    observations_make(make_refs(sample, "mixed", rng), citing)
    workers = [worker_start(env, "worker", 2, "resolution")]
    killed: list[float] = []

    def kill_once(elapsed: float, run: Any) -> None:
        # A quarter through, while the worker is inside a chunk (taken, not finished).
        if not killed and run.done >= run.total // 4 and in_chunk(run):
            os.killpg(workers[0].pid, signal.SIGKILL)  # main process and pool, mid-chunk
            workers[0].wait()
            killed.append(elapsed)
            workers.append(worker_start(env, "worker", 2, "resolution"))

    try:
        run, elapsed, _ = run_timed(citing, args.chunk_size, kill_once)
    finally:
        for worker in workers:
            worker_kill(worker)
    again = run.chunks.filter(attempts__gt=1).count()
    print(f"  kill -9 run, 2 processes: {run.total:,} references in {elapsed:.1f} s "
          f"({run.total / elapsed:,.0f} refs/s; killed at {killed[0]:.1f} s, {again} chunks taken "
          f"again, visibility timeout {args.visibility} s; {resolved_once(run)})", flush=True)  # fmt: skip


def in_chunk(run: Any) -> bool:
    """Return whether a worker is inside one of the run's chunks (taken, not finished)."""
    return bool(run.chunks.filter(started_at__isnull=False, done_at__isnull=True).exists())


if __name__ == "__main__":
    main()
