"""Real Celery worker processes against the test database and the test run's Redis broker."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from citerec.celery import app
from tests.conftest import database_url

REPO = Path(__file__).resolve().parent.parent
QUEUES = "default,resolution,notices,crossref,ingestion"


class Worker:
    """A `celery worker` subprocess in its own process group (so a test can kill all of it)."""

    def __init__(self, popen: subprocess.Popen[str], node: str) -> None:
        self.popen = popen
        self.node = node
        self._output: str | None = None

    def ready(self) -> bool:
        """Return whether the worker answers a ping (it consumes its queues from then on)."""
        return bool(app.control.ping(destination=[self.node], timeout=0.5))

    @property
    def pid(self) -> int:
        """Return the pid of the worker's main process."""
        return self.popen.pid

    def children(self) -> list[int]:
        """Return the pids of the main process's children (the prefork pool processes)."""
        path = Path(f"/proc/{self.pid}/task/{self.pid}/children")
        return [int(pid) for pid in path.read_text().split()] if path.exists() else []

    def kill_main(self) -> None:
        """Kill -9 the main process only (its pool processes are left orphaned)."""
        os.kill(self.pid, signal.SIGKILL)
        self.popen.wait(timeout=30)

    def stop(self) -> str:
        """Stop the worker and everything it started; return its output."""
        if self._output is not None:
            return self._output
        try:
            os.killpg(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            output, _ = self.popen.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.pid, signal.SIGKILL)
            output, _ = self.popen.communicate(timeout=10)
        try:  # orphaned pool processes of a killed main process are still in the group
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._output = output or ""
        return self._output


def worker_env(redis_url: str, **extra: str) -> dict[str, str]:
    """Return the environment of a worker on the test database and the test broker."""
    return {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "DEBUG": "1",
        "CITEREC_OFFLINE": "1",
        # The production settings: tests.settings runs tasks eagerly, a worker never does.
        "DJANGO_SETTINGS_MODULE": "citerec.settings",
        **extra,
    }


def start_worker(
    env: dict[str, str], *, name: str, concurrency: int = 1, pool: str = "prefork"
) -> Worker:
    """Start a worker on every queue; it logs to a pipe read when it stops."""
    node = f"{name}-{os.getpid()}@{socket.gethostname()}"
    command = [
        sys.executable, "-m", "celery", "-A", "citerec", "worker", f"--pool={pool}",
        f"--concurrency={concurrency}", "-Q", QUEUES, "--without-heartbeat", "--without-gossip",
        "--without-mingle", "-n", node, "--loglevel=INFO",
    ]  # fmt: skip
    popen = subprocess.Popen(
        command,
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    return Worker(popen, node)


@contextmanager
def workers() -> Iterator[list[Worker]]:
    """Collect the workers a test starts and stop them all at the end."""
    started: list[Worker] = []
    try:
        yield started
    finally:
        for worker in started:
            worker.stop()


def _key(name: str) -> str:
    """Return a broker key as kombu writes it (with the deployment's key prefix, if any)."""
    return str((app.conf.broker_transport_options or {}).get("global_keyprefix", "")) + name


def broker_clear(redis_url: str) -> None:
    """Empty the test broker's queues and forget unacked messages of earlier tests."""
    names = [*QUEUES.split(","), "unacked", "unacked_index", "unacked_mutex"]
    redis.Redis.from_url(redis_url).delete(*(_key(name) for name in names))


def queued(redis_url: str, queue: str = "resolution") -> int:
    """Return how many messages wait on a queue."""
    return int(redis.Redis.from_url(redis_url).llen(_key(queue)))


@pytest.fixture
def broker(redis_url: str) -> Iterator[str]:
    """Send tasks to the real broker (tests otherwise run them eagerly); clear it around."""
    broker_clear(redis_url)
    eager = app.conf.task_always_eager
    app.conf.broker_url = redis_url
    app.conf.task_always_eager = False
    try:
        yield redis_url
    finally:
        app.conf.task_always_eager = eager
        broker_clear(redis_url)


def wait_for(
    condition: Callable[[], bool], *, timeout: float, running: list[Worker], what: str
) -> None:
    """Poll until condition() holds; fail with the workers' output on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.3)
    outputs = "\n---\n".join(w.stop()[-4000:] for w in running)
    pytest.fail(f"timed out waiting for {what}\n{outputs}")
