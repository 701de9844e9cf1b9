"""Start a process the way production does: its Procfile line, run by bash with an environment.

Tests and benchmarks that need a web server start the Procfile's `web` line, so what they
measure or check is the server, settings and flags production runs, not a copy of them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def procfile_line(name: str) -> str:
    """Return the command of the Procfile process `name` (e.g. "web")."""
    for line in (REPO / "Procfile").read_text().splitlines():
        key, _, command = line.partition(":")
        if key.strip() == name:
            return command.strip()
    raise KeyError(f"Procfile has no {name!r} process")


def start_procfile_process(name: str, env: dict[str, str], **popen: Any) -> subprocess.Popen[Any]:
    """Start the Procfile process `name` under bash (its ${VAR:-default} expansions), with this
    interpreter's venv first on PATH (where granian and celery are installed)."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', os.environ['PATH'])}"
    return subprocess.Popen(
        ["bash", "-c", f"exec {procfile_line(name)}"],
        cwd=REPO,
        env={**env, "PATH": path},
        **popen,
    )
