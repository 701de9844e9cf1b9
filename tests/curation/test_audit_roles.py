"""The runtime role writes audited data but cannot rewrite, delete or switch off history.

Roles are cluster-wide, so each test process makes its own runtime role (random name) with
`grant_runtime_role`, connects as it with a second connection, and drops it at the end; other
runs on the same server never see it.
"""

from __future__ import annotations

import io
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlparse, urlunparse

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection
from psycopg import errors

from curation.db_roles import RoleError, grant_runtime_role, history_tables
from tests.conftest import REPO, SAMPLE_RECORD, database_url

pytestmark = pytest.mark.django_db

EVENT_TABLE = "curation_observationevent"
CONTEXT_TABLE = "pghistory_context"
CONTEXT_SQL = (
    "SELECT set_config('pghistory.context_id', gen_random_uuid()::text, true), "
    'set_config(\'pghistory.context_metadata\', \'{"actor": "test", "reason": "test"}\', true)'
)


@dataclass(frozen=True)
class RuntimeRole:
    name: str
    password: str

    def url(self, database: str) -> str:
        """Return the URL of `database` on the test server, connecting as this role."""
        parsed = urlparse(database_url(database))
        netloc = f"{self.name}:{quote(self.password)}@{parsed.netloc.rpartition('@')[2]}"
        return urlunparse(parsed._replace(netloc=netloc))

    def connect(self, database: str | None = None) -> psycopg.Connection[Any]:
        """Open a connection to the test database (or another) as this role."""
        return psycopg.connect(self.url(database or connection.settings_dict["NAME"]))


@pytest.fixture(scope="session")
def runtime_role(django_db_setup: None, django_db_blocker: Any) -> Iterator[RuntimeRole]:
    role = RuntimeRole(f"citerec_test_rt_{secrets.token_hex(4)}", secrets.token_hex(16))
    with django_db_blocker.unblock():
        grant_runtime_role(role.name, password=role.password)
    yield role
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        if not cursor.fetchone()[0]:  # DROP OWNED needs membership; CREATEROLE may grant it
            cursor.execute(f'GRANT "{role.name}" TO CURRENT_USER')
        cursor.execute(f'DROP OWNED BY "{role.name}"')
        cursor.execute(f'DROP ROLE "{role.name}"')


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
    insert = "INSERT INTO curation_standingsource (name, label, description) VALUES (%s, %s, '')"
    with runtime_role.connect() as conn:
        conn.execute(CONTEXT_SQL)
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
        conn.execute(CONTEXT_SQL)
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
        assert by_table[table] == (True, False, False, False)
    assert by_table["curation_observation"] == (True, True, True, False)
    assert by_table["django_migrations"] == (False, False, False, False)


def test_grant_refuses_the_owner_and_odd_names() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        owner = cursor.fetchone()[0]
    with pytest.raises(RoleError, match="the runtime role must be another one"):
        grant_runtime_role(owner)
    with pytest.raises(RoleError, match="lower-case letters"):
        grant_runtime_role('x"; DROP TABLE auth_user; --')


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
    runtime_role: RuntimeRole,
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

        _manage("import_records", str(SAMPLE_RECORD), env={"DATABASE_URL": runtime_role.url(fresh)})
        assert _sql(
            fresh,
            "SELECT count(*), min(c.metadata ->> 'actor') FROM curation_observationevent e "
            "JOIN pghistory_context c ON c.id = e.pgh_context_id",
        ) == [(33, "command:import_records")]
        with runtime_role.connect(fresh) as conn, pytest.raises(errors.InsufficientPrivilege):
            conn.execute(f"TRUNCATE {EVENT_TABLE}")
    finally:
        _sql(
            "postgres",
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = '{fresh}' AND pid <> pg_backend_pid()",
        )
        _sql("postgres", f'DROP DATABASE IF EXISTS "{fresh}"')
