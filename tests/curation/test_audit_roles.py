"""The runtime role writes audited data but cannot forge, rewrite, delete or switch off history.

Roles are cluster-wide, so each test process makes its own runtime role (random name) with
`grant_runtime_role`, connects as it with a second connection, and drops it at the end; other
runs on the same server never see it. Where a test needs a context the application would send,
it signs one as `curation.audit` does (`sign_context`), with the key of this test's SECRET_KEY.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection
from psycopg import errors

from curation.db_roles import RoleError, grant_runtime_role, history_tables
from curation.history import (
    ORIGIN_TABLE,
    SESSION_SETTING,
    SIGNATURE_SETTING,
    SIGNING_KEY_TABLE,
    context_signature,
)
from tests.conftest import REPO, SAMPLE_RECORD, database_url
from tests.runtime_roles import RuntimeRole, runtime_role_fixture

pytestmark = pytest.mark.django_db

EVENT_TABLE = "curation_observationevent"
CONTEXT_TABLE = "pghistory_context"
TEST_METADATA = json.dumps({"actor": "test", "reason": "test"})
ALICE = json.dumps({"actor": "user:alice", "source": "admin", "reason": "checked", "user": 1})
INSERT_SOURCE = "INSERT INTO curation_standingsource (name, label, description) VALUES (%s, %s, '')"


def sign_context(
    conn: psycopg.Connection[Any],
    metadata: str = TEST_METADATA,
    *,
    key: bytes | None = None,
    session: str | None = None,
) -> tuple[str, str, str]:
    """Set a history context as curation.audit does; return its id, metadata and signature.

    The session secret goes as a server-side parameter (psycopg's default), as the app sends it.
    """
    session = session or secrets.token_hex(32)
    conn.execute(f"SELECT set_config('{SESSION_SETTING}', %s, false)", [session])
    context_id = str(uuid.uuid4())
    signature = context_signature(session, context_id, metadata, key)
    set_context(conn, context_id, metadata, signature)
    return context_id, metadata, signature


def set_context(
    conn: psycopg.Connection[Any], context_id: str, metadata: str, signature: str
) -> None:
    """Set the transaction's history settings to these texts, signed or not."""
    conn.execute(
        "SELECT set_config('pghistory.context_id', %s, true), "
        "set_config('pghistory.context_metadata', %s, true), "
        f"set_config('{SIGNATURE_SETTING}', %s, true)",
        [context_id, metadata, signature],
    )


runtime_role = runtime_role_fixture("citerec_test_rt")


def _refused(role: RuntimeRole, *statements: str) -> type[Exception]:
    """Run statements as the role in a transaction that is rolled back; return the error type."""
    with role.connect() as conn:
        with pytest.raises(psycopg.Error) as refused:
            for statement in statements:
                conn.execute(statement)
        conn.rollback()
    return type(refused.value)


@pytest.mark.parametrize("table", [EVENT_TABLE, CONTEXT_TABLE])
@pytest.mark.parametrize(
    "statement",
    ["UPDATE {} SET pgh_obj_id = pgh_obj_id", "DELETE FROM {}", "TRUNCATE {}"],
)
def test_runtime_role_cannot_update_delete_or_truncate_history(
    runtime_role: RuntimeRole, table: str, statement: str
) -> None:
    if table == CONTEXT_TABLE:
        statement = statement.replace("pgh_obj_id", "metadata")
    assert _refused(runtime_role, statement.format(table)) is errors.InsufficientPrivilege


@pytest.mark.parametrize(
    "statement",
    [
        f"ALTER TABLE {EVENT_TABLE} DISABLE TRIGGER ALL",
        "ALTER TABLE curation_observation DISABLE TRIGGER ALL",
        f"ALTER TABLE {EVENT_TABLE} DROP CONSTRAINT observation_event_has_context",
        "SET session_replication_role = replica",  # would skip every trigger
        "DROP TRIGGER IF EXISTS pgtrigger_update_update_69102 ON curation_observation",
        "CREATE TRIGGER sneak BEFORE INSERT ON curation_observation "
        "FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()",
        "CREATE OR REPLACE FUNCTION _pgh_attach_context() RETURNS uuid "
        "LANGUAGE sql AS 'SELECT gen_random_uuid()'",
        f"CREATE TABLE {EVENT_TABLE}_copy (id int)",
    ],
)
def test_runtime_role_cannot_alter_tables_or_switch_triggers_off(
    runtime_role: RuntimeRole, statement: str
) -> None:
    assert _refused(runtime_role, statement) is errors.InsufficientPrivilege


def test_runtime_role_writes_only_with_a_context(runtime_role: RuntimeRole) -> None:
    insert = INSERT_SOURCE
    with runtime_role.connect() as conn:
        sign_context(conn)
        conn.execute(insert, ["rt-source", "Runtime source"])
        conn.execute(
            "UPDATE curation_standingsource SET label = 'renamed' WHERE name = 'rt-source'"
        )
        events = conn.execute(
            "SELECT pgh_label, c.metadata ->> 'actor' FROM curation_standingsourceevent e "
            "JOIN pghistory_context c ON c.id = e.pgh_context_id WHERE e.name = 'rt-source' "
            "ORDER BY pgh_id"
        ).fetchall()
        assert events == [("insert", "test"), ("update", "test")]
        conn.rollback()
    assert _refused(runtime_role, insert.replace("%s", "'x'")) is errors.CheckViolation


def test_a_temporary_table_cannot_catch_the_history(runtime_role: RuntimeRole) -> None:
    with runtime_role.connect() as conn:
        conn.execute(
            "CREATE TEMP TABLE curation_standingsourceevent (LIKE public.curation_standingsourceevent)"
        )
        conn.execute("CREATE TEMP TABLE pghistory_context (LIKE public.pghistory_context)")
        sign_context(conn)
        conn.execute(
            "INSERT INTO curation_standingsource (name, label, description) VALUES ('t', 't', '')"
        )
        counts = conn.execute(
            "SELECT (SELECT count(*) FROM public.curation_standingsourceevent WHERE name = 't'), "
            "(SELECT count(*) FROM pg_temp.curation_standingsourceevent), "
            "(SELECT count(*) FROM pg_temp.pghistory_context)"
        ).fetchone()
        conn.rollback()
    assert counts == (1, 0, 0)


# --- Forging history (issue 28 item 7): each way in, refused as the runtime role ------------


@pytest.mark.parametrize(
    "statement",
    [
        # A backdated event for an existing object, under a context the writer makes up.
        "INSERT INTO curation_standingsourceevent (id, name, label, description, pgh_created_at, "
        "pgh_label, pgh_obj_id, pgh_context_id) "
        "VALUES (1, 'old', 'old', '', '2020-01-01', 'insert', 1, gen_random_uuid())",
        "INSERT INTO pghistory_context (id, metadata, created_at, updated_at) "
        'VALUES (gen_random_uuid(), \'{"actor": "user:alice", "source": "admin"}\', '
        "'2020-01-01', '2020-01-01')",
        f"INSERT INTO {ORIGIN_TABLE} (context_id, db_role, backend_pid, signed, recorded_at) "
        "VALUES (gen_random_uuid(), 'citerec_owner', 1, true, '2020-01-01')",
        f"SELECT * FROM {SIGNING_KEY_TABLE}",
        "SELECT _pgh_attach_context()",
    ],
    ids=["backdated-event", "context", "origin", "read-signing-key", "call-attach-context"],
)
def test_runtime_role_cannot_write_history_itself_or_read_the_key(
    runtime_role: RuntimeRole, statement: str
) -> None:
    def signed_then(conn: psycopg.Connection[Any]) -> None:
        sign_context(conn)  # even under a context the application signed
        conn.execute(statement)

    with runtime_role.connect() as conn:
        with pytest.raises(errors.InsufficientPrivilege):
            signed_then(conn)
        conn.rollback()


def test_runtime_role_cannot_borrow_a_history_trigger_function(runtime_role: RuntimeRole) -> None:
    """A trigger of one's own on a temporary table would run the owner's event writer."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.oid::regprocedure::text FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid "
            "WHERE t.tgrelid = 'curation_standingsource'::regclass AND t.tgname LIKE '%insert%'"
        )
        (writer,) = cursor.fetchone()
    assert (
        _refused(
            runtime_role,
            "CREATE TEMP TABLE new_rows (LIKE public.curation_standingsource)",
            "CREATE TRIGGER borrow AFTER INSERT ON new_rows REFERENCING NEW TABLE AS new_values "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {writer}",
        )
        is errors.InsufficientPrivilege
    )


def _source_label(name: str) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT label FROM curation_standingsource WHERE name = %s", [name])
        row = cursor.fetchone()
    return None if row is None else str(row[0])


@pytest.mark.parametrize(
    "forge",
    ["unsigned", "another-key", "other-metadata", "no-session"],
)
def test_a_context_the_application_did_not_sign_is_refused(
    runtime_role: RuntimeRole, forge: str
) -> None:
    """The runtime password alone cannot write as "user:alice, source admin"."""
    with runtime_role.connect() as conn:
        session = secrets.token_hex(32)
        conn.execute(f"SELECT set_config('{SESSION_SETTING}', %s, false)", [session])
        context_id = str(uuid.uuid4())
        signature = {
            "unsigned": "",
            "another-key": context_signature(session, context_id, ALICE, key=b"guessed" * 8),
            # A signature the application made, for metadata other than what is sent.
            "other-metadata": context_signature(session, context_id, TEST_METADATA),
            "no-session": context_signature("", context_id, ALICE),
        }[forge]
        if forge == "no-session":
            conn.execute(f"SELECT set_config('{SESSION_SETTING}', '', false)")
        set_context(conn, context_id, ALICE, signature)
        with pytest.raises(errors.InsufficientPrivilege, match="is not signed by citerec"):
            conn.execute(INSERT_SOURCE, ["forged", "forged"])
        conn.rollback()
        assert conn.execute(
            "SELECT count(*) FROM pghistory_context WHERE id = %s", [context_id]
        ).fetchone() == (0,)
    assert _source_label("forged") is None  # nothing written


def test_a_signature_seen_in_another_session_is_worth_nothing(runtime_role: RuntimeRole) -> None:
    """A signature is in every statement's text (pg_stat_activity shows it to the same role); the
    connection secret it binds to is not (tests/curation/test_history_signing.py)."""
    with runtime_role.connect() as app, runtime_role.connect() as attacker:
        context_id, metadata, signature = sign_context(app, ALICE)
        attacker.execute(
            f"SELECT set_config('{SESSION_SETTING}', %s, false)", [secrets.token_hex(32)]
        )
        set_context(attacker, context_id, metadata, signature)
        with pytest.raises(errors.InsufficientPrivilege, match="is not signed by citerec"):
            attacker.execute(INSERT_SOURCE, ["replayed", "replayed"])
        attacker.rollback()
        app.execute(INSERT_SOURCE, ["signed", "signed"])  # the same context in its own session
        app.rollback()


def test_a_signed_context_records_the_server_time_and_who_connected(
    runtime_role: RuntimeRole,
) -> None:
    with runtime_role.connect() as conn:
        context_id, _, _ = sign_context(conn, ALICE)
        conn.execute(INSERT_SOURCE, ["timed", "timed"])
        row = conn.execute(
            "SELECT e.pgh_created_at = now(), c.created_at = now(), c.metadata ->> 'actor', "
            "o.db_role, o.signed, o.backend_pid = pg_backend_pid() "
            "FROM curation_standingsourceevent e JOIN pghistory_context c ON c.id = e.pgh_context_id "
            f"JOIN {ORIGIN_TABLE} o ON o.context_id = c.id WHERE e.name = 'timed'"
        ).fetchone()
        conn.rollback()
    assert row == (True, True, "user:alice", runtime_role.name, True, True)


def test_grant_refuses_a_context_function_that_takes_any_context(runtime_role: RuntimeRole) -> None:
    """pghistory's own installer would put back the unsigned upsert: grant says so, not silently."""
    from pghistory.models import Context

    Context.install_pgh_attach_context_func()  # rolled back with the test's transaction
    with pytest.raises(RoleError, match="not citerec's signed version"):
        grant_runtime_role(runtime_role.name)


def test_grant_is_idempotent_and_takes_back_what_was_added_by_hand(
    runtime_role: RuntimeRole,
) -> None:
    def privileges() -> list[tuple[str, bool, bool, bool, bool]]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT tablename, has_table_privilege(%s, tablename, 'INSERT'), "
                "has_table_privilege(%s, tablename, 'UPDATE'), "
                "has_table_privilege(%s, tablename, 'DELETE'), "
                "has_table_privilege(%s, tablename, 'TRUNCATE') "
                "FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename",
                [runtime_role.name] * 4,
            )
            return cursor.fetchall()

    before = privileges()
    with connection.cursor() as cursor:
        cursor.execute(f'GRANT ALL ON {CONTEXT_TABLE}, {EVENT_TABLE} TO "{runtime_role.name}"')
    out = io.StringIO()
    call_command("grant_runtime_role", runtime_role.name, stdout=out)
    call_command("grant_runtime_role", runtime_role.name, stdout=out)
    assert privileges() == before
    assert out.getvalue().count(f"updated runtime role {runtime_role.name}") == 2

    by_table = {row[0]: row[1:] for row in before}
    for table in history_tables():
        assert by_table[table] == (False, False, False, False)
    assert by_table["curation_observation"] == (True, True, True, False)
    assert by_table["django_migrations"] == (False, False, False, False)
    assert by_table[SIGNING_KEY_TABLE] == (False, False, False, False)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT has_table_privilege(%s, %s, 'SELECT'), has_table_privilege(%s, %s, 'SELECT')",
            [runtime_role.name, SIGNING_KEY_TABLE, runtime_role.name, EVENT_TABLE],
        )
        assert cursor.fetchone() == (False, True)


def test_grant_refuses_the_owner_and_odd_names() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        owner = cursor.fetchone()[0]
    with pytest.raises(RoleError, match="the runtime role must be another one"):
        grant_runtime_role(owner)
    with pytest.raises(RoleError, match="lower-case letters"):
        grant_runtime_role('x"; DROP TABLE auth_user; --')


AUDITED_AFTER_A_ROLLBACK = """
from django.db import transaction
from curation.audit import Actor, audited
from curation.models import Observation
actor = Actor.command("test")
try:
    with transaction.atomic(), audited(actor, "first"):
        Observation.objects.filter(reference_index=1).update(pinned=True)
        raise RuntimeError("rolled back")
except RuntimeError:
    pass
with transaction.atomic(), audited(actor, "second"):
    Observation.objects.filter(reference_index=2).update(pinned=True)
with audited(actor, "third"):
    Observation.objects.filter(reference_index=3).update(pinned=True)
"""


def _manage(*args: str, env: dict[str, str]) -> str:
    environment = {k: v for k, v in os.environ.items() if not k.endswith("REDIS_URL")}
    environment.pop("MIGRATION_DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env={**environment, "DEBUG": "1", **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def _sql(database: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(database_url(database), autocommit=True) as conn:
        cursor = conn.execute(sql)
        return cursor.fetchall() if cursor.description else []


def test_migrate_as_owner_then_the_app_runs_as_the_runtime_role(
    runtime_role: RuntimeRole, tmp_path: Path
) -> None:
    """The documented production flow, on a fresh database, in real processes."""
    fresh = f"{connection.settings_dict['NAME']}_roles"
    _sql("postgres", f'DROP DATABASE IF EXISTS "{fresh}"')
    _sql("postgres", f'CREATE DATABASE "{fresh}"')
    try:
        roles = {
            "DATABASE_URL": runtime_role.url(fresh),
            "MIGRATION_DATABASE_URL": database_url(fresh),
        }
        _manage("migrate", "--no-input", env=roles)  # as MIGRATION_DATABASE_URL's owner
        first = _manage("grant_runtime_role", env=roles)  # the role is DATABASE_URL's user
        again = _manage("grant_runtime_role", env=roles)
        assert (
            first.split(":")[0]
            == again.split(":")[0]
            == f"updated runtime role {runtime_role.name} in {fresh}.public"
        )

        as_runtime = {"DATABASE_URL": runtime_role.url(fresh)}
        _manage("import_records", str(SAMPLE_RECORD), env=as_runtime)
        assert _sql(
            fresh,
            "SELECT count(*), min(c.metadata ->> 'actor'), min(o.db_role), bool_and(o.signed) "
            "FROM curation_observationevent e JOIN pghistory_context c ON c.id = e.pgh_context_id "
            f"JOIN {ORIGIN_TABLE} o ON o.context_id = c.id",
        ) == [(33, "command:import_records", runtime_role.name, True)]
        # audited() as the app runs it: a block in a transaction that rolls back (the session
        # secret it gave the database goes with it), then one that commits, then autocommit.
        _manage("shell", "-c", AUDITED_AFTER_A_ROLLBACK, env=as_runtime)
        assert _sql(
            fresh,
            "SELECT e.reference_index, c.metadata ->> 'reason' FROM curation_observationevent e "
            "JOIN pghistory_context c ON c.id = e.pgh_context_id WHERE e.pgh_label = 'update' "
            "ORDER BY e.reference_index",
        ) == [(2, "second"), (3, "third")]
        with runtime_role.connect(fresh) as conn, pytest.raises(errors.InsufficientPrivilege):
            conn.execute(f"TRUNCATE {EVENT_TABLE}")
        # The runtime role can still back up everything: the dump leaves out the signing key.
        _manage("backup_database", str(tmp_path / "runtime.dump"), env=as_runtime)
        assert (tmp_path / "runtime.dump").stat().st_size > 0
    finally:
        _sql(
            "postgres",
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = '{fresh}' AND pid <> pg_backend_pid()",
        )
        _sql("postgres", f'DROP DATABASE IF EXISTS "{fresh}"')
