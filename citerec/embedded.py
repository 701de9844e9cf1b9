"""Start the embedded PostgreSQL (pgserver wheel) used when DATABASE_URL is not set.

The machine's real server is the reference; this one exists so that `make run` and `make test`
work on a machine with nothing but Python. The server keeps running after the process exits
(cleanup_mode=None) so the next command reuses it instantly.

pgserver 0.1.4 keeps the ids of the processes using the server in `<pgdata>/.handle_pids.json`
and rewrites that file in place. A signal that stops two processes at once (Ctrl-C on
`make run`: runserver and its autoreloader child) can leave it empty or naming dead processes,
and every later start then dies with JSONDecodeError. The file is repaired before each start.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

DATABASE_NAME = "citerec"
HANDLE_FILE = ".handle_pids.json"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def repair_handle_file(pgdata: Path) -> list[int] | None:
    """Rewrite pgserver's handle file with the live processes only; return them if rewritten.

    Returns None when the file is absent or already a list of live process ids.
    """
    path = pgdata / HANDLE_FILE
    try:
        raw = path.read_text()
    except FileNotFoundError:
        return None
    try:
        listed = json.loads(raw)
    except ValueError:
        listed = None
    valid = isinstance(listed, list) and all(
        isinstance(pid, int) and not isinstance(pid, bool) for pid in listed
    )
    live = [pid for pid in listed if _alive(pid)] if valid and listed is not None else []
    if valid and live == listed:
        return None
    # Written aside and renamed, so a reader never sees a half-written file.
    spare = path.with_name(f"{HANDLE_FILE}.{os.getpid()}.tmp")
    spare.write_text(json.dumps(live))
    os.replace(spare, path)
    return live


def embedded_database_url(data_dir: Path) -> str:
    """Start (or reuse) the embedded server under data_dir and return the citerec database URL."""
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); it is harmless here.
        warnings.simplefilter("ignore")
        import pgserver  # imported lazily: only the embedded default needs it
        from pgserver.postgres_server import PostgresServer

    data_dir.mkdir(parents=True, exist_ok=True)
    # Under pgserver's own inter-process lock, so no other process is writing the file meanwhile.
    with PostgresServer._lock:
        repair_handle_file(data_dir.resolve())
    server = pgserver.get_server(str(data_dir), cleanup_mode=None)
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
    if "(1 row)" not in exists:
        server.psql(f"CREATE DATABASE {DATABASE_NAME};")
    # A socket URL: postgresql://postgres:@/citerec?host=<data_dir>
    return str(server.get_uri(DATABASE_NAME))
