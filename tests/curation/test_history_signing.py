"""How audited() signs a history context, and that the database computes the same signature.

The refusals of an unsigned or replayed context, as the runtime role, are in test_audit_roles.py.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
from typing import Any

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from curation import audit
from curation.audit import Actor, audited
from curation.history import (
    SESSION_SETTING,
    SIGNATURE_SETTING,
    context_signature,
    signing_key,
    signing_key_pads,
)
from curation.models import Observation, ObservationEvent
from curation.states import ChangeSource
from tests.conftest import database_url

pytestmark = pytest.mark.django_db

ALICE = Actor(name="user:alice", source=ChangeSource.ADMIN, user_id=7)


@pytest.fixture
def imported(sample_record_path: Any) -> None:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())


@pytest.mark.parametrize("key", [b"k", b"0123456789abcdef" * 4, b"x" * 100])
def test_the_database_signs_as_python_does_from_the_key_pads(key: bytes) -> None:
    inner, outer = signing_key_pads(key)
    message = 'session\n7a3f0b2e-0000-4000-8000-000000000000\n{"actor": "user:alice"}'
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT encode(sha256(%s::bytea || sha256(%s::bytea || convert_to(%s, 'UTF8'))), 'hex')",
            [outer, inner, message],
        )
        in_database = cursor.fetchone()[0]
    session, context_id, metadata = message.split("\n")
    assert in_database == context_signature(session, context_id, metadata, key)
    assert in_database == hmac.new(key, message.encode(), hashlib.sha256).hexdigest()


def test_the_signing_key_is_derived_from_secret_key_not_secret_key_itself(settings: Any) -> None:
    key = signing_key()
    assert key != settings.SECRET_KEY.encode() and len(key) == 32
    settings.SECRET_KEY = "another-secret-key-for-this-test-only-0123456789"
    assert signing_key() != key


def _history_settings() -> tuple[str, str, str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('pghistory.context_id', true), "
            "current_setting('pghistory.context_metadata', true), "
            f"current_setting('{SIGNATURE_SETTING}', true), current_setting('{SESSION_SETTING}', true)"
        )
        return tuple(cursor.fetchone())  # type: ignore[return-value]


def test_every_writing_statement_carries_a_signature_of_its_context(imported: None) -> None:
    with audited(ALICE, "checked"):
        Observation.objects.filter(reference_index=1).update(pinned=True)
        context_id, metadata, signature, session = _history_settings()
    assert json.loads(metadata)["actor"] == "user:alice"
    assert signature == context_signature(session, context_id, metadata)
    event = ObservationEvent.objects.get(pgh_label="update")
    assert str(event.pgh_context_id) == context_id
    assert _history_settings()[:3] == ("", "", "")  # cleared on the way out


def test_executemany_carries_the_signed_context_too(imported: None) -> None:
    with audited(ALICE, "two pins"), connection.cursor() as cursor:
        cursor.executemany(
            "UPDATE curation_observation SET pinned = %s WHERE reference_index = %s",
            [(True, 1), (True, 2)],
        )
    assert ObservationEvent.objects.filter(pgh_label="update").count() == 2


def test_the_session_secret_never_shows_in_the_query_text(imported: None) -> None:
    """pg_stat_activity shows a session's last statement to every session of the same role."""
    with audited(ALICE, "checked"):
        Observation.objects.filter(reference_index=1).update(pinned=True)
        secret = audit._history_session()  # given again inside the test's transaction
        pid = connection.connection.info.backend_pid
        with psycopg.connect(database_url(), autocommit=True) as other:
            seen = other.execute(
                "SELECT query FROM pg_stat_activity WHERE pid = %s", [pid]
            ).fetchone()
    assert seen is not None and SESSION_SETTING in seen[0]
    assert secret not in seen[0]
