"""Start the embedded PostgreSQL (pgserver wheel) used when DATABASE_URL is not set.

The machine's real server is the reference; this one exists so that `make run` and `make test`
work on a machine with nothing but Python. The server keeps running after the process exits
(cleanup_mode=None) so the next command reuses it instantly.
"""

from __future__ import annotations

import warnings
from pathlib import Path

DATABASE_NAME = "citerec"


def embedded_database_url(data_dir: Path) -> str:
    """Start (or reuse) the embedded server under data_dir and return the citerec database URL."""
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); it is harmless here.
        warnings.simplefilter("ignore")
        import pgserver  # imported lazily: only the embedded default needs it

    data_dir.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(str(data_dir), cleanup_mode=None)
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
    if "(1 row)" not in exists:
        server.psql(f"CREATE DATABASE {DATABASE_NAME};")
    # A socket URL: postgresql://postgres:@/citerec?host=<data_dir>
    return str(server.get_uri(DATABASE_NAME))
