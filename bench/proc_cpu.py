"""CPU time of processes on this machine, read from /proc (Linux), for the benchmarks' figures.

On a shared two-core machine requests/s move with everyone else's load; the CPU each part spends
per request or per reference moves far less, so the benchmarks print both.
"""

from __future__ import annotations

import os
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
