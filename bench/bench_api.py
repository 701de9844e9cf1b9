"""Drive the API over loopback with a bounded load and print requests/s and p50/p99 latency.

Usage: python bench/bench_api.py [--seconds 10] [--connections 8] [--redis-url URL]
                                [--database NAME] [--port N] [--keep]

It creates a throwaway database next to the configured one (DATABASE_URL, else the embedded
PostgreSQL), stores a record with 100 outbound and 100 inbound references, starts the
Procfile's web line (granian, 2 processes of 1 Python thread, keep-alive) on 127.0.0.1 (throttling off,
DEBUG off), and measures: the record endpoint, 50-row pages of the observation, paper and
notice-event lists and of the records?changed_since feed, and 304 answers to If-None-Match
(record and observation page). The load generator is wrk when installed (`apt-get install -y
wrk`), else a Python client with threads. Nothing leaves loopback; every run is bounded by
--seconds per endpoint. The load average is printed before and after, as the figures mean little
without it on a shared machine. Targets: issue 14, >= 600 req/s with p99 <= 60 ms for the record,
>= 2,500 req/s for 304s, records never stale; issue 28, a 50-row list page >= 1,000 req/s with
p99 <= 60 ms, the record's p99 <= 60 ms in every run.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from proc_cpu import backends_cpu, tree_cpu, yardstick

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.procfile import procfile_line, start_procfile_process  # noqa: E402

BENCH_DB = "citerec_bench_api"
PAPER = "2502.00001"


@dataclass
class Figures:
    """What one endpoint measured."""

    name: str
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    tool: str
    cpu_ms: tuple[float, float, float] = (0.0, 0.0, 0.0)  # per request: web, PostgreSQL, client


def _base_url() -> str:
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    from citerec.embedded import embedded_database_url

    return embedded_database_url(REPO / ".data" / "pg")


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def _environment(database_url: str, redis_url: str | None) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-" + "x" * 50,
        "SECURE_SSL_REDIRECT": "0",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "API_ANON_RATE": "off",  # the bench runs with throttling off
        "API_USER_RATE": "off",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("REDIS_URL", None)
    env.pop("CACHE_REDIS_URL", None)
    if redis_url:
        env["CACHE_REDIS_URL"] = redis_url
    return env


def _seed(env: dict[str, str]) -> None:
    """Migrate the bench database and store the 100-outbound, 100-inbound record."""
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=REPO, env=env, check=True)
    script = f"""
from curation.audit import Actor
from curation.services import record_import
from tests import records_factory as rf
store = lambda doc: record_import(document=doc, actor=Actor.command("bench"), reason="bench data")
store(rf.record("{PAPER}", [rf.observation("{PAPER}", i, cited=f"2301.{{i:05d}}",
      status="verified_exact") for i in range(1, 101)]))
for n in range(100):
    citing = f"2503.{{n:05d}}"
    store(rf.record(citing, [rf.observation(citing, 1, cited="{PAPER}", status="verified_fuzzy")]))
# Notice events for the notice list: a retraction and a correction for 60 cited works.
from datetime import date
from django.utils import timezone
from curation.audit import audited
from curation.models import CitedWork
from curation.notices.models import NoticeEvent
now = timezone.now()
with audited(Actor.command("bench"), "bench data"):
    for i in range(1, 61):
        work, _ = CitedWork.objects.get_or_create(arxiv_id=f"2301.{{i:05d}}")
        for kind, severity in (("retraction", 0), ("correction", 3)):
            NoticeEvent.objects.create(
                work=work, source="crossref", identity=f"10.1/{{kind}}-{{i}}", type=kind,
                severity=severity, date=date(2024, 5, 1), reasons=["bench"],
                first_seen_at=now, last_seen_at=now,
            )
"""
    subprocess.run([python, "manage.py", "shell", "-c", script], cwd=REPO, env=env, check=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_web(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    """Start the Procfile's web line (the production server and flags) on this port."""
    server_env = {**env, "HOST": "127.0.0.1", "PORT": str(port)}
    server = start_procfile_process(
        "web", server_env, stdout=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            _get(port, f"/api/v1/records/{PAPER}", {})
            return server
        except OSError:
            time.sleep(0.3)
    _stop(server)
    raise SystemExit("the Procfile's web server did not answer within 30 s")


def _stop(server: subprocess.Popen[bytes]) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    server.wait(timeout=30)


def _get(port: int, path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def _page_etag(port: int, path: str) -> str:
    """Check that a list answers a full page, and return its ETag."""
    import json

    status, headers, body = _get(port, path, {})
    rows = len(json.loads(body)["results"]) if status == 200 else 0
    if rows != 50 or "etag" not in headers:
        raise SystemExit(f"{path}: expected a 50-row page with an ETag, got {status}, {rows} rows")
    return headers["etag"]


_WRK_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _wrk_ms(text: str, label: str) -> float:
    match = re.search(rf"^\s*{label}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    if match is None:
        raise ValueError(f"wrk printed no {label}% latency")
    return float(match.group(1)) * _WRK_UNITS[match.group(2)]


def _with_wrk(name: str, url: str, headers: dict[str, str], seconds: int, conns: int) -> Figures:
    command = ["wrk", "-t2", f"-c{conns}", f"-d{seconds}s", "--latency"]
    for key, value in headers.items():
        command += ["-H", f"{key}: {value}"]
    out = subprocess.run(command + [url], capture_output=True, text=True, check=True).stdout
    if "Non-2xx or 3xx responses" in out:
        raise SystemExit(f"{name}: errors under load\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    return Figures(name, rps, _wrk_ms(out, "50"), _wrk_ms(out, "99"), "wrk")


def _with_threads(
    name: str, port: int, path: str, headers: dict[str, str], seconds: int, conns: int
) -> Figures:
    latencies: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker() -> None:
        mine = []
        while time.monotonic() < stop:
            started = time.perf_counter()
            status, _, _ = _get(port, path, headers)
            mine.append((time.perf_counter() - started) * 1000)
            if status >= 400:
                raise SystemExit(f"{name}: HTTP {status}")
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=worker) for _ in range(conns)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cuts = statistics.quantiles(latencies, n=100)
    return Figures(name, len(latencies) / seconds, cuts[49], cuts[98], "python threads")


def main() -> None:
    """Set up, measure the three endpoints, print the figures, tear down."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10, help="load per endpoint (max 60)")
    parser.add_argument("--connections", type=int, default=8, help="concurrent clients (max 64)")
    parser.add_argument("--redis-url", help="cache in Redis, as in production (e.g. db 13)")
    parser.add_argument("--database", default=BENCH_DB, help="throwaway database name")
    parser.add_argument("--port", type=int, default=0, help="web server port (0 = any free one)")
    parser.add_argument("--keep", action="store_true", help="keep the bench database")
    args = parser.parse_args()
    seconds, conns = min(args.seconds, 60), min(args.connections, 64)

    base = _base_url()
    database = args.database
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", database):
        raise SystemExit("--database: lower-case letters, digits and _ only")
    database_url = _with_database(base, database)
    _admin(base, f"DROP DATABASE IF EXISTS {database}")
    _admin(base, f"CREATE DATABASE {database}")
    env = _environment(database_url, args.redis_url)
    load_before = os.getloadavg()
    server = None
    try:
        _seed(env)
        port = args.port or _free_port()
        server = _start_web(env, port)
        status, headers, body = _get(port, f"/api/v1/records/{PAPER}", {})
        assert status == 200 and body.count(b'"observation_id"') == 200, status
        etag = headers["etag"]
        lists = {
            "observation list (50 rows)": f"/api/v1/observations?paper={PAPER}",
            "paper list (50 rows)": "/api/v1/papers",
            "notice-event list (50 rows)": "/api/v1/notice-events",
            "records?changed_since (50 rows)": "/api/v1/records?changed_since=2000-01-01T00:00:00Z",
        }
        page_etags = {name: _page_etag(port, path) for name, path in lists.items()}
        observations = lists["observation list (50 rows)"]
        cases = [
            ("record (200, 100+100 refs)", f"/api/v1/records/{PAPER}", {}),
            *((name, path, {}) for name, path in lists.items()),
            ("record 304 (If-None-Match)", f"/api/v1/records/{PAPER}", {"If-None-Match": etag}),
            (
                "observation list 304",
                observations,
                {"If-None-Match": page_etags["observation list (50 rows)"]},
            ),
        ]
        results = []
        for name, path, extra in cases:
            before = _cpu(server.pid, base, database)
            if shutil.which("wrk"):
                url = f"http://127.0.0.1:{port}{path}"
                figures = _with_wrk(name, url, extra, seconds, conns)
            else:
                figures = _with_threads(name, port, path, extra, seconds, conns)
            used = [b - a for a, b in zip(before, _cpu(server.pid, base, database), strict=True)]
            requests = figures.requests_per_second * seconds
            figures.cpu_ms = tuple(1000 * x / requests for x in used)  # type: ignore[assignment]
            results.append(figures)
    finally:
        if server is not None:
            _stop(server)
        if not args.keep:
            _admin(base, f"DROP DATABASE IF EXISTS {database}")

    cache = "Redis" if args.redis_url else "in-process (locmem)"
    load = " / ".join(" ".join(f"{x:.2f}" for x in avg) for avg in (load_before, os.getloadavg()))
    print(
        f"Procfile web ({procfile_line('web').split()[0]}), {os.cpu_count()} CPUs, {conns} connections, "
        f"{seconds} s per endpoint, cache {cache}; load average before / after: {load}; "
        f"machine yardstick {yardstick():.0f} ms CPU (proc_cpu.yardstick: lower is a faster machine)"
    )
    print(f"{'endpoint':32} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}  CPU ms per request: "
          "web / PostgreSQL / client  tool")  # fmt: skip
    for f in results:
        cpu = " / ".join(f"{x:.3f}" for x in f.cpu_ms)
        print(f"{f.name:32} {f.requests_per_second:9.0f} {f.p50_ms:8.2f} {f.p99_ms:8.2f}  "
              f"{cpu:>40}  {f.tool}")  # fmt: skip


def _cpu(server_pid: int, url: str, database: str) -> tuple[float, float, float]:
    """Return CPU seconds used so far by the web server (main process and workers), the bench
    database's PostgreSQL backends, and this script's finished children (wrk) plus itself."""
    own = resource.getrusage(resource.RUSAGE_CHILDREN)
    me = resource.getrusage(resource.RUSAGE_SELF)
    client = own.ru_utime + own.ru_stime + me.ru_utime + me.ru_stime
    return tree_cpu([server_pid]), backends_cpu(url, database), client


if __name__ == "__main__":
    main()
