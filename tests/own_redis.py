"""A redis-server of the test's own, on a spare port: to stop, pause (SIGSTOP, as a network
blackhole hangs a client) and resume, without touching the Redis the rest of the suite uses.

Use it by importing the fixture into the test module (or its conftest): `from tests.own_redis
import own_redis_fixture`.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from citerec.caches import reset_circuits
from tests.conftest import free_port, missing_service


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


@pytest.fixture(name="own_redis")
def own_redis_fixture(tmp_path: Path) -> Iterator[OwnRedis]:
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
