"""The embedded PostgreSQL survives an interrupted `make run`: pgserver's handle file, left empty
or naming dead processes by a signal, is repaired before the next start; and the README's
commands run as written on the embedded default (no DEBUG, SECRET_KEY or DATABASE_URL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from citerec.embedded import HANDLE_FILE, repair_handle_file
from tests.conftest import REPO

START = (
    "import sys; from pathlib import Path\n"
    "from citerec.embedded import embedded_database_url\n"
    "print(embedded_database_url(Path(sys.argv[1])))\n"
)


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.parametrize("content", ["", "[", "{}", '["x"]', "[true]"])
def test_an_unreadable_handle_file_is_rewritten_empty(tmp_path: Path, content: str) -> None:
    (tmp_path / HANDLE_FILE).write_text(content)
    assert repair_handle_file(tmp_path) == []
    assert json.loads((tmp_path / HANDLE_FILE).read_text()) == []


def test_dead_processes_are_dropped_and_live_ones_kept(tmp_path: Path) -> None:
    (tmp_path / HANDLE_FILE).write_text(json.dumps([_dead_pid(), os.getpid()]))
    assert repair_handle_file(tmp_path) == [os.getpid()]
    assert json.loads((tmp_path / HANDLE_FILE).read_text()) == [os.getpid()]
    assert sorted(p.name for p in tmp_path.iterdir()) == [HANDLE_FILE]  # no temporary left


def test_a_sound_or_absent_handle_file_is_left_alone(tmp_path: Path) -> None:
    assert repair_handle_file(tmp_path) is None
    assert not (tmp_path / HANDLE_FILE).exists()
    (tmp_path / HANDLE_FILE).write_text(json.dumps([os.getpid()]))
    assert repair_handle_file(tmp_path) is None


def _bare_environ(**extra: str) -> dict[str, str]:
    unset = ("DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "CACHE_REDIS_URL")
    environ = {k: v for k, v in os.environ.items() if k not in unset}
    environ.pop("DJANGO_SETTINGS_MODULE", None)
    environ.update(extra)
    return environ


def _start(data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", START, str(data)],
        cwd=REPO,
        env=_bare_environ(),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def embedded_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Start an embedded server of the module's own, and stop it afterwards."""
    data = tmp_path_factory.mktemp("embedded")
    started = _start(data / "pg")
    assert started.returncode == 0, started.stderr
    yield data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR unset (containers, CI)
        from pgserver import _commands

    user = "pgserver" if os.geteuid() == 0 else None  # pgserver runs it as this user under root
    _commands.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=data / "pg", user=user)


def test_the_next_start_after_an_interrupted_run_works(embedded_data: Path) -> None:
    pgdata = embedded_data / "pg"
    for left_behind in ("", json.dumps([_dead_pid(), _dead_pid()])):
        (pgdata / HANDLE_FILE).write_text(left_behind)  # what a killed `make run` leaves
        again = _start(pgdata)
        assert again.returncode == 0, again.stderr
        assert again.stdout.startswith("postgresql://")
        assert json.loads((pgdata / HANDLE_FILE).read_text()) == []  # the child has exited


def test_readme_commands_run_as_written_on_the_embedded_default(embedded_data: Path) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "parse_reference", "A. Author. A title. arXiv:2412.14374"],
        cwd=REPO,
        env=_bare_environ(CITEREC_DATA_DIR=str(embedded_data)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "2412.14374" in result.stdout
    assert "SECRET_KEY" not in result.stderr
