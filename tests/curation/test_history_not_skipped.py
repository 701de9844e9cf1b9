"""The runtime role cannot skip history with `pgtrigger.ignore` (issue 39 item 1).

pgtrigger's trigger functions return early when the setting `pgtrigger.ignore` names their
trigger, any role may set it, and trigger names are readable in pg_trigger. Each test here
connects as a runtime role made by `grant_runtime_role`, as the web and workers do.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.db import connection
from psycopg import errors

from curation.db_roles import grant_runtime_role
from curation.history import event_model
from curation.models import StandingSource
from tests.curation.test_audit_roles import INSERT_SOURCE, sign_context
from tests.runtime_roles import RuntimeRole, runtime_role_fixture

pytestmark = pytest.mark.django_db

runtime_role = runtime_role_fixture("citerec_test_skip")

SKIPPED = "citerec_skip_test"  # the row each test writes, in a transaction rolled back
WRITES = {
    "insert": INSERT_SOURCE.replace("%s", f"'{SKIPPED}'", 1).replace("%s", "'new'"),
    "update": f"UPDATE curation_standingsource SET label = 'changed' WHERE name = '{SKIPPED}'",
    "delete": f"DELETE FROM curation_standingsource WHERE name = '{SKIPPED}'",
}


def _triggers(table: str) -> str:
    """Return the names of the table's pgtrigger triggers as a text array (pg_trigger: public)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT '{' || string_agg(tgname, ',') || '}' FROM pg_trigger "
            "WHERE tgrelid = %s::regclass AND tgname LIKE 'pgtrigger%%'",
            [table],
        )
        return str(cursor.fetchone()[0])


def _ignore(conn: psycopg.Connection[Any], how: str, triggers: str) -> None:
    if how == "set-local":
        conn.execute(f"SET LOCAL pgtrigger.ignore = '{triggers}'")
    else:  # a session-wide SET, which outlives the transaction
        conn.execute(f"SET pgtrigger.ignore = '{triggers}'")


def _events(conn: psycopg.Connection[Any]) -> list[str]:
    rows = conn.execute(
        "SELECT pgh_label FROM curation_standingsourceevent WHERE name = %s ORDER BY pgh_id",
        [SKIPPED],
    ).fetchall()
    return [row[0] for row in rows]


@pytest.mark.parametrize("how", ["set-local", "set-session"])
@pytest.mark.parametrize("write", sorted(WRITES))
def test_the_runtime_role_cannot_skip_history_with_pgtrigger_ignore(
    runtime_role: RuntimeRole, write: str, how: str
) -> None:
    triggers = _triggers("curation_standingsource")
    with runtime_role.connect() as conn:
        sign_context(conn)  # a context the application signed: only the skip is refused
        if write != "insert":
            conn.execute(WRITES["insert"])
        before = _events(conn)
        _ignore(conn, how, triggers)
        with pytest.raises(errors.InsufficientPrivilege, match="cannot skip history"):
            conn.execute(WRITES[write])
        conn.rollback()
    assert not StandingSource.objects.filter(name=SKIPPED).exists()
    assert before == ([] if write == "insert" else ["insert"])


def test_a_skip_set_during_the_statement_itself_is_refused(runtime_role: RuntimeRole) -> None:
    """The history triggers run after the rows are written; so must the check."""
    triggers = _triggers("curation_standingsource")
    with runtime_role.connect() as conn:
        sign_context(conn)
        conn.execute(WRITES["insert"])
        with pytest.raises(errors.InsufficientPrivilege, match="cannot skip history"):
            conn.execute(
                "UPDATE curation_standingsource SET label = "
                f"(SELECT set_config('pgtrigger.ignore', '{triggers}', true)) "
                f"WHERE name = '{SKIPPED}'"
            )
        conn.rollback()


def _pgtrigger_tables() -> dict[str, str]:
    """Return each table that has pgtrigger triggers, with the name of its first column."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT c.relname, a.attname FROM pg_trigger t "
            "JOIN pg_class c ON c.oid = t.tgrelid "
            "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = 1 "
            "WHERE c.relnamespace = current_schema()::regnamespace AND t.tgname LIKE 'pgtrigger%' "
            "ORDER BY 1"
        )
        return dict(cursor.fetchall())


def test_no_table_with_history_triggers_can_skip_them(runtime_role: RuntimeRole) -> None:
    """Every tracked table, and the event tables with their append-only triggers: a statement
    naming their triggers in pgtrigger.ignore is refused, even one that touches no row (a
    statement's history trigger fires all the same)."""
    tables = _pgtrigger_tables()
    assert "curation_observation" in tables and "curation_resolution" in tables
    assert "curation_observationevent" in tables  # the append-only triggers
    writable, skipped = [], []
    with runtime_role.connect() as conn:
        for table, column in tables.items():
            for write in (
                f"UPDATE {table} SET {column} = {column} WHERE false",
                f"DELETE FROM {table} WHERE false",
            ):
                _ignore(conn, "set-local", _triggers(table))
                try:
                    conn.execute(write)
                    skipped.append(write)
                except errors.InsufficientPrivilege as refused:
                    # Event tables: the runtime role may not write them at all.
                    if "cannot skip history" in str(refused):
                        writable.append(table)
                conn.rollback()
    assert skipped == []
    assert "curation_observation" in writable and "curation_resolution" in writable


def test_the_owner_may_still_skip_its_own_triggers(runtime_role: RuntimeRole) -> None:
    """The migration role could rewrite the functions anyway; the benchmarks' fixtures skip
    history through pgtrigger.ignore as it (bench/bench_admin.py)."""
    import pgtrigger

    with pgtrigger.ignore("curation.StandingSource:insert_insert"):
        StandingSource.objects.create(name=SKIPPED, label="fixture")
    assert not event_model("standingsource").objects.filter(name=SKIPPED).exists()


@pytest.mark.django_db(transaction=True)
def test_still_refused_after_a_migration_recreates_the_trigger_functions(
    runtime_role: RuntimeRole,
) -> None:
    """A migration re-creates a trigger's function and pgtrigger's ignore function as pgtrigger
    ships them; until grant_runtime_role runs again the skip stays refused, and after it too."""
    trigger = next(t for t in StandingSource._meta.triggers if t.name == "update_update")  # type: ignore[attr-defined]
    try:
        trigger.install(StandingSource)  # what a migration's AddTrigger runs
        for _ in ("after the migration", "after grant_runtime_role"):
            with runtime_role.connect() as conn:
                _ignore(conn, "set-session", _triggers("curation_standingsource"))
                with pytest.raises(errors.InsufficientPrivilege, match="cannot skip history"):
                    conn.execute("UPDATE curation_standingsource SET label = label WHERE false")
            grant_runtime_role(runtime_role.name)
    finally:
        grant_runtime_role(runtime_role.name)
