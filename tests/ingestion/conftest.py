"""Ingestion fixtures: the fake arXiv, dev sources by name, and papers built in process."""

from __future__ import annotations

import io
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import TestCase

from citerec.caches import local_caches
from tests.clients.arxiv.conftest import fake_arxiv  # noqa: F401 - the fixture, for this package
from tests.clients.arxiv.fake_arxiv import DEV_SOURCES
from tests.workers import broker  # noqa: F401 - the real-broker fixture of the worker tests

__all__ = ["DEV_SOURCES", "add_papers", "dev_source", "fake_arxiv"]


@pytest.fixture(autouse=True)
def _own_caches(settings: Any) -> None:
    """Built records never leak between tests (the record cache is keyed by version)."""
    settings.CACHES = local_caches({"default": 300, "records": 300}, f"test-{uuid.uuid4()}")


def dev_source(slug: str) -> Path:
    """Return the archive of a development paper (skips when ../shared/data is absent)."""
    for suffix in (".tar.gz", ".gz"):
        path = DEV_SOURCES / f"{slug}{suffix}"
        if path.exists():
            return path
    pytest.skip(f"{DEV_SOURCES} has no {slug}: the shared development data is not here")


def add_papers(*ids: str, **options: Any) -> str:
    """Run `add_papers` (in process: tests run tasks eagerly); return what it printed.

    Jobs are queued when the request commits; inside a test's transaction that is now.
    """
    out = io.StringIO()
    with TestCase.captureOnCommitCallbacks(execute=True):
        call_command("add_papers", *ids, stdout=out, stderr=io.StringIO(), **options)
    return out.getvalue()
