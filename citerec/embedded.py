"""Start the embedded PostgreSQL (pgserver wheel) used when DATABASE_URL is not set.

The machine's real server is the reference; this one exists so that `make run` and `make test`
work on a machine with nothing but Python. The server keeps running after the process exits
(cleanup_mode=None) so the next command reuses it instantly.
"""

from __future__ import annotations

import warnings
from pathlib import Path


def embedded_database_url(data_dir: Path) -> str:
    """Start (or reuse) the embedded server under data_dir and return its URL."""
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); it is harmless here.
        warnings.simplefilter("ignore")
        import pgserver  # imported lazily: only the embedded default needs it

    data_dir.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(str(data_dir), cleanup_mode=None)
    # pgserver gives a socket URL like postgresql://postgres:@/postgres?host=/path
    return str(server.get_uri())
