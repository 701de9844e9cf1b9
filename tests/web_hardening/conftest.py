"""Web hardening fixtures: a Redis server of the test's own (to pause and resume), the sample."""

from __future__ import annotations

import io
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from citerec.caches import local_caches
from tests.own_redis import own_redis_fixture  # noqa: F401  (a fixture of these tests)


@pytest.fixture
def own_caches(settings: Any) -> None:
    """Give the test empty in-process caches: throttle counts never leak between tests."""
    settings.CACHES = local_caches({"default": 300, "records": 300}, f"hardening-{uuid.uuid4()}")


@pytest.fixture
def sample(sample_record_path: Path) -> None:
    """Import the sample record (2412.14374, 33 references)."""
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
