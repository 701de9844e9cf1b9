"""Shared fixtures: services that must be present under CI, and the sample records."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlparse

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLE_RECORD = REPO / "samples" / "records" / "citation-record-2412.14374.json"


def free_port() -> int:
    """Return a TCP port nobody listens on right now (for a server a test starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def missing_service(reason: str) -> None:
    """Skip with a visible reason, or fail when CITEREC_REQUIRE_SERVICES=1 (CI)."""
    if os.environ.get("CITEREC_REQUIRE_SERVICES") == "1":
        pytest.fail(f"required service missing: {reason}")
    pytest.skip(reason)


@pytest.fixture
def redis_url() -> str:
    """Return REDIS_URL when a Redis server answers there."""
    url = os.environ.get("REDIS_URL")
    if not url:
        missing_service("REDIS_URL is not set: no broker for a real worker")
    parsed = urlparse(url)
    try:
        with socket.create_connection(
            (parsed.hostname or "127.0.0.1", parsed.port or 6379), timeout=2
        ):
            pass
    except OSError as exc:
        missing_service(f"Redis at {url} does not answer: {exc}")
    return str(url)


@pytest.fixture(autouse=True)
def _no_request_counted_yet() -> None:
    """Start every test with no request counted by the throttles (api/throttles.py).

    The API and the reader pages share one budget per address, and the test client's address
    is always 127.0.0.1: counts left in the default cache by earlier tests would refuse later
    ones with 429. Only the throttles' keys go (a shared Redis keeps everything else).
    """
    from django.core.cache import cache

    if hasattr(cache, "delete_pattern"):  # django-redis: this run's prefix only
        cache.delete_pattern("throttle_*", itersize=1000)
    else:  # memory of this process
        cache.clear()


@pytest.fixture
def sample_record_path() -> Path:
    """Return the path of the sample record shipped with the repo."""
    return SAMPLE_RECORD


def database_url(name: str | None = None) -> str:
    """Return a URL for the test database (or another one on the same server) for subprocesses."""
    from django.db import connection

    s = connection.settings_dict
    host = s.get("HOST") or s["OPTIONS"].get("host", "")
    auth = f"{quote(s['USER'])}:{quote(s.get('PASSWORD') or '')}"
    database = name or s["NAME"]
    if host.startswith("/"):
        return f"postgresql://{auth}@/{database}?host={host}"
    return f"postgresql://{auth}@{host}:{s.get('PORT') or 5432}/{database}"


@pytest.fixture(scope="session", autouse=True)
def _close_stray_connections(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """End connections left by server threads (live_server, browsers) so the test DB can drop."""
    yield
    from django.db import connection

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Yield a headless Debian Chromium for Playwright tests (helpers in tests/browser.py)."""
    from tests.browser import launch

    yield from launch(monkeypatch)
