"""CPU time of processes on this machine, read from /proc (Linux), for the benchmarks' figures.

On a shared two-core machine requests/s move with everyone else's load; the CPU each part spends
per request or per reference moves far less, so the benchmarks print both.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import psycopg


def process_cpu(pid: int) -> float:
    """Return the CPU time (user + system, seconds) one process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu(pids: list[int]) -> float:
    """Return the CPU time used so far by these processes and their direct children."""
    total = 0.0
    for pid in pids:
        try:
            found = [pid, *map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split())]
            total += sum(process_cpu(each) for each in found)
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def backends_cpu(url: str, database: str) -> float:
    """Return the CPU time used so far by the PostgreSQL backends connected to `database`
    (other than the connection asking; the server runs on this machine)."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid() "
            "AND backend_type = 'client backend'",
            [database],
        ).fetchall()
    total = 0.0
    for (pid,) in rows:
        try:
            total += process_cpu(pid)
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


_YARDSTICK_TEXT = "Smith J, Jones K. Graph minors XX: Wagner's conjecture. J. Comb. Theory 92 (2004) 325. " * 4
_YARDSTICK_RE = re.compile(r"\b[A-Z][a-z]+\b|\d+")


def yardstick() -> float:
    """Return the CPU milliseconds (best of 3) of a fixed pure-Python and regex workload.

    The same code runs at different speeds on different days here (the VM's host varies by
    up to 2x); printed beside a figure, this lets figures from different days be compared.
    """
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        total = 0
        for i in range(10_000):
            total += len(_YARDSTICK_RE.findall(_YARDSTICK_TEXT[i % 7 :]))
            total += sum(ord(c) for c in _YARDSTICK_TEXT[:40])
        best = min(best, time.process_time() - start)
    return best * 1000
