"""Web hardening fixtures: a Redis server of the test's own (to pause and resume), the sample."""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from django.core.management import call_command

from citerec.caches import local_caches, reset_circuits
from tests.conftest import missing_service


def free_port() -> int:
    """Return a TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class OwnRedis:
    """A redis-server this test started: it may pause it (SIGSTOP, as a blackhole hangs a
    client) and resume it."""

    url: str
    process: subprocess.Popen[bytes]

    def pause(self) -> None:
        """Stop the server without closing its sockets: clients wait until they time out."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        """Let the paused server run again."""
        os.kill(self.process.pid, signal.SIGCONT)

    def client(self) -> redis.Redis:
        """Return a client of the test's own (not the cache's, so not behind its breaker)."""
        return redis.Redis.from_url(self.url, socket_timeout=5)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    """Start a redis-server on a spare port; whatever happens, resume and kill it afterwards."""
    binary = shutil.which("redis-server")
    if binary is None:
        missing_service("redis-server is not installed: no Redis of our own to pause")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
    )
    server = OwnRedis(f"redis://127.0.0.1:{port}/0", process)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                server.client().ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail("our own redis-server did not start")
                time.sleep(0.05)
        yield server
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGCONT)  # resumed first, so nothing waits on it
            process.kill()
        process.wait(timeout=30)
        reset_circuits()  # the port may serve another test's server later


@pytest.fixture
def own_caches(settings: Any) -> None:
    """Give the test empty in-process caches: throttle counts never leak between tests."""
    settings.CACHES = local_caches({"default": 300, "records": 300}, f"hardening-{uuid.uuid4()}")


@pytest.fixture
def sample(sample_record_path: Path) -> None:
    """Import the sample record (2412.14374, 33 references)."""
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
