"""Backups with PostgreSQL's own tools (pg_dump custom format, pg_restore).

The binaries must match the server's major version: the embedded server's come with the
pgserver wheel; a real server's are found on PATH (or CITEREC_PG_BIN).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection


class BackupError(RuntimeError):
    """pg_dump or pg_restore failed; the message carries their own words."""


def _bin_dir() -> Path | None:
    if settings.CITEREC_PG_BIN:
        return Path(settings.CITEREC_PG_BIN)
    if settings.DATABASE_EMBEDDED:
        import pgserver

        return Path(pgserver.__file__).parent / "pginstall" / "bin"
    return None


def _tool(name: str) -> str:
    directory = _bin_dir()
    found = str(directory / name) if directory else shutil.which(name)
    if not found or not Path(found).exists():
        raise BackupError(f"{name} not found (set CITEREC_PG_BIN to the server's bin directory)")
    return found


def _connection_args(database: str | None = None) -> tuple[list[str], dict[str, str]]:
    """Return libpq arguments and environment for the configured database."""
    params: dict[str, Any] = connection.get_connection_params()
    env = {**os.environ}
    if params.get("password"):
        env["PGPASSWORD"] = str(params["password"])
    args = ["--username", str(params.get("user") or "postgres")]
    if params.get("host"):
        args += ["--host", str(params["host"])]
    if params.get("port"):
        args += ["--port", str(params["port"])]
    args += ["--dbname", database or str(params.get("dbname") or settings.DATABASES["default"]["NAME"])]
    return args, env


def _run(command: list[str], env: dict[str, str]) -> None:
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BackupError(result.stderr.strip() or f"{command[0]} exited {result.returncode}")


def dump_database(path: Path) -> None:
    """Write the whole database (data, history, triggers) to path in pg_dump's custom format."""
    args, env = _connection_args()
    # The history signing key stays out of every dump (and the runtime role may not read it):
    # grant_runtime_role writes it again after a restore (curation/db_roles.py).
    no_key = "--exclude-table=citerec_history_key"
    dump = [_tool("pg_dump"), "--format=custom", "--no-owner", no_key, "--file", str(path)]
    _run([*dump, *args], env)


def restore_database(path: Path, database: str) -> None:
    """Restore a dump into an existing, empty database (history triggers come back with it)."""
    args, env = _connection_args(database)
    _run([_tool("pg_restore"), "--no-owner", "--exit-on-error", *args, str(path)], env)
