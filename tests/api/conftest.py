"""API fixtures: the sample record, a big record, and the personas who call the API."""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from citerec.caches import local_caches
from curation.audit import Actor
from curation.services import record_import
from tests import records_factory as rf

BIG = "2502.00001"


def locmem_caches(name: str) -> dict[str, dict[str, Any]]:
    """Return a CACHES setting of fresh in-process caches."""
    return local_caches({"default": 300, "records": 300}, name)


@pytest.fixture(autouse=True)
def _own_caches(settings: Any) -> None:
    """Give every test empty caches of its own: throttle counts and built records never leak
    between tests, nor into a shared Redis (tests/api/test_redis_cache.py uses that)."""
    settings.CACHES = locmem_caches(f"test-{uuid.uuid4()}")


@pytest.fixture
def sample(sample_record_path: Path) -> dict[str, Any]:
    """Import the sample record and return its document."""
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    return json.loads(sample_record_path.read_text())  # type: ignore[no-any-return]


def store(doc: dict[str, Any]) -> None:
    """Import a factory-built record."""
    record_import(document=doc, actor=Actor.command("test"), reason="fixture")


@pytest.fixture
def big_record() -> str:
    """Store a paper with 150 outbound and 120 inbound verified observations; return its id."""
    outbound = [
        rf.observation(BIG, i, cited=f"2301.{i:05d}", status="verified_exact")
        for i in range(1, 151)
    ]
    store(rf.record(BIG, outbound))
    for n in range(120):
        citing = f"2503.{n:05d}"
        store(rf.record(citing, [rf.observation(citing, 1, cited=BIG, status="verified_fuzzy")]))
    return BIG


@pytest.fixture
def anon() -> APIClient:
    """Return a client with no credentials (a consumer reading public records)."""
    return APIClient()


@pytest.fixture
def reader() -> APIClient:
    """Return a client authenticated by token (Rita, a registered consumer)."""
    user = get_user_model().objects.create_user("rita", "rita@example.org", "pw-Xk2!long")
    token = Token.objects.create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def curator() -> APIClient:
    """Return a client for Carla, a member of the Curators group."""
    user = get_user_model().objects.create_user("carla", "carla@example.org", "pw-Xk2!long")
    user.groups.add(Group.objects.get_or_create(name="Curators")[0])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client
