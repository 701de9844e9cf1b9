"""The runtime database role: it writes curated data, and history follows, written by the owner.

The migration role owns the schema and runs `migrate`. The runtime role (the web, workers and
beat) gets SELECT/INSERT/UPDATE/DELETE on the data tables and only SELECT on the history
(pghistory event tables, pghistory_context, the contexts' origins), owns nothing, and so cannot
write, rewrite, delete or TRUNCATE history, ALTER a table or disable its triggers, nor skip them
through pgtrigger.ignore (SKIP_GUARD below). History is
written by the owner's trigger functions (SECURITY DEFINER, search path pinned), and a context
from the runtime role counts only when signed with the key this module installs, derived from
SECRET_KEY (curation/history.py). See README "Database roles".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from django.apps import apps
from django.db import connections, transaction
from django.db.backends.utils import CursorWrapper

from .history import (
    ORIGIN_TABLE,
    SIGNATURE_SETTING,
    SIGNING_KEY_TABLE,
    signing_key,
    signing_key_pads,
)

DATA_PRIVILEGES = "SELECT, INSERT, UPDATE, DELETE"
HISTORY_PRIVILEGES = "SELECT"
# The migration log is the owner's business; the runtime role may only read it.
READ_ONLY_TABLES = ("django_migrations",)
# What the database checks history signatures with: no one but the owner may even read it.
OWNER_ONLY_TABLES = (SIGNING_KEY_TABLE,)
_ROLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class RoleError(Exception):
    """The runtime role cannot be set up as asked."""


def history_tables() -> list[str]:
    """Return the tables that hold history: pghistory's contexts and every event table."""
    from pghistory.models import Context, Event

    tables = {Context._meta.db_table, ORIGIN_TABLE}
    for model in apps.get_models():
        if issubclass(model, Event) and model._meta.managed and not model._meta.proxy:
            tables.add(model._meta.db_table)
    return sorted(tables)


def grant_runtime_role(role: str, *, using: str = "default", password: str | None = None) -> str:
    """Create `role` if missing and give it exactly the runtime privileges; return what was done.

    Runs as the schema owner (the migration role), in one transaction, and starts from no
    privileges each time, so it is idempotent and also takes back anything granted by hand.
    Tables created later get SELECT only until this runs again after `migrate`. It also writes
    the history signing key (from SECRET_KEY: run it again after changing SECRET_KEY) and makes
    the history-writing functions run as the owner (`migrate` may have re-created them).
    """
    if not _ROLE_NAME.match(role):
        raise RoleError(f"runtime role {role!r}: use lower-case letters, digits and _ only")
    connection = connections[using]
    quote = connection.ops.quote_name
    with transaction.atomic(using=using), connection.cursor() as cursor:
        cursor.execute("SELECT current_user, current_schema(), current_database()")
        owner, schema, database = cursor.fetchone()
        if role == owner:
            raise RoleError(
                f"{role} is the role running this command (the schema owner); "
                "the runtime role must be another one"
            )
        created = _ensure_role(cursor, role, owner, password)
        _ensure_signing_key_table(cursor, quote(schema))
        tables = set(connection.introspection.table_names(cursor))
        r, s = quote(role), quote(schema)
        statements = [
            f"GRANT CONNECT, TEMPORARY ON DATABASE {quote(database)} TO {r}",
            f"GRANT USAGE ON SCHEMA {s} TO {r}",
            # Catalogue imports: the owner's GIN pending-list merge and ANALYZE, nothing else
            # (curation/resolution/migrations/0005_catalogue_settle_function.py).
            f"GRANT EXECUTE ON FUNCTION {s}.resolution_settle_catalogue(text) TO {r}",
            # and the drop of the Crossref title index before a bulk load (0008), rebuilt by
            # the settle after it.
            f"GRANT EXECUTE ON FUNCTION {s}.resolution_defer_catalogue_index(text) TO {r}",
            # ANALYZE of the curated tables after bulk writes, when stale (curation 0012).
            f"GRANT EXECUTE ON FUNCTION {s}.citerec_analyze_stale(text[], bigint, double precision) "
            f"TO {r}",
            f"REVOKE ALL ON ALL TABLES IN SCHEMA {s} FROM {r}",
            f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {s} FROM {r}",
            f"GRANT {DATA_PRIVILEGES} ON ALL TABLES IN SCHEMA {s} TO {r}",
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {s} TO {r}",
            *_revoke(quote, "INSERT, UPDATE, DELETE", READ_ONLY_TABLES, tables, r),
            *_revoke(quote, "INSERT, UPDATE, DELETE", history_tables(), tables, r),
            *_revoke(quote, "ALL", OWNER_ONLY_TABLES, tables, r),
            *_revoke(quote, "ALL", OWNER_ONLY_TABLES, tables, "PUBLIC"),
            # Future tables: never more than history privileges until this command has run.
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {quote(owner)} IN SCHEMA {s} "
            f"REVOKE ALL ON TABLES FROM {r}",
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {quote(owner)} IN SCHEMA {s} "
            f"GRANT {HISTORY_PRIVILEGES} ON TABLES TO {r}",
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {quote(owner)} IN SCHEMA {s} "
            f"GRANT USAGE, SELECT ON SEQUENCES TO {r}",
        ]
        for statement in statements:
            cursor.execute(statement)
        _install_signing_key(cursor, quote(schema))
        pinned = _pin_trigger_search_path(cursor, quote, schema)
        writers = _history_written_by_owner(cursor, quote, schema)
        guarded = _history_not_skipped(cursor, quote, schema)
        cursor.execute("SELECT has_schema_privilege(%s, %s, 'CREATE')", [role, schema])
        can_create = cursor.fetchone()[0]
    done = (
        f"{'created' if created else 'updated'} runtime role {role} in {database}.{schema}: "
        f"{DATA_PRIVILEGES} on data tables, {HISTORY_PRIVILEGES} on "
        f"{len(history_tables())} history tables; search path pinned on {pinned} trigger "
        f"functions; history written by {writers} owner functions; pgtrigger.ignore refused on "
        f"{guarded} tables; history signing key installed"
    )
    if can_create:  # PostgreSQL before 15 lets PUBLIC create in the public schema
        done += f"\nwarning: {role} may create objects in {schema}: REVOKE CREATE ON SCHEMA {s} FROM PUBLIC"
    return done


def _ensure_role(cursor: CursorWrapper, role: str, owner: str, password: str | None) -> bool:
    """Create the role if missing (or set its password); refuse one that could bend history."""
    cursor.execute(
        "SELECT rolsuper, rolbypassrls, pg_has_role(rolname, %s, 'MEMBER') "
        "FROM pg_roles WHERE rolname = %s",
        [owner, role],
    )
    row = cursor.fetchone()
    created = row is None
    if created:
        cursor.execute(
            f'CREATE ROLE "{role}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION '
            "NOBYPASSRLS"
        )
    elif row[0] or row[1]:
        raise RoleError(f"{role} is a superuser or bypasses row security: it could rewrite history")
    elif row[2]:
        raise RoleError(f"{role} is a member of {owner}, so it could act as the schema owner")
    if password:
        cursor.execute("SELECT format('ALTER ROLE %%I PASSWORD %%L', %s, %s)", [role, password])
        cursor.execute(cursor.fetchone()[0])
    return created


def _revoke(
    quote: Callable[[str], str],
    privileges: str,
    wanted: Iterable[str],
    existing: set[str],
    role: str,
) -> list[str]:
    """Return REVOKE statements for the wanted tables that exist."""
    names = ", ".join(quote(t) for t in wanted if t in existing)
    return [f"REVOKE {privileges} ON TABLE {names} FROM {role}"] if names else []


def _pin_trigger_search_path(
    cursor: CursorWrapper, quote: Callable[[str], str], schema: str
) -> int:
    """Pin the search path of this schema's trigger functions; return how many.

    The triggers name their event tables without a schema, and the runtime role may create
    temporary tables (imports stage through them): without the pin, a temporary table named like
    an event table would take the history rows. pgtrigger recreates a function when its trigger
    changes, so this runs after every `migrate` with the grants.
    """
    cursor.execute(
        "SELECT DISTINCT p.oid::regprocedure::text FROM pg_trigger t "
        "JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_class c ON c.oid = t.tgrelid "
        "WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal "
        "AND p.proowner = current_user::regrole"
    )
    functions = [row[0] for row in cursor.fetchall()]
    for function in functions:
        cursor.execute(f"ALTER FUNCTION {function} SET search_path = {quote(schema)}, pg_temp")
    return len(functions)


def _ensure_signing_key_table(cursor: CursorWrapper, schema: str) -> None:
    """Create the owner-only table of the history signing key if it is missing.

    It is made here, not by a migration, because backups leave it out (the key never travels in
    a dump: curation/backup.py), so after a restore this command makes it again.
    """
    cursor.execute(
        f"CREATE TABLE IF NOT EXISTS {schema}.{SIGNING_KEY_TABLE} ("
        "id smallint PRIMARY KEY CHECK (id = 1), inner_pad bytea NOT NULL, "
        "outer_pad bytea NOT NULL, installed_at timestamptz NOT NULL)"
    )


def _install_signing_key(cursor: CursorWrapper, schema: str) -> None:
    """Write this deployment's history signing key (HMAC pads) for the database to check with."""
    inner, outer = signing_key_pads(signing_key())
    cursor.execute(
        f"INSERT INTO {schema}.{SIGNING_KEY_TABLE} (id, inner_pad, outer_pad, installed_at) "
        "VALUES (1, %s, %s, now()) ON CONFLICT (id) DO UPDATE SET inner_pad = EXCLUDED.inner_pad, "
        "outer_pad = EXCLUDED.outer_pad, installed_at = EXCLUDED.installed_at "
        f"WHERE {SIGNING_KEY_TABLE}.inner_pad IS DISTINCT FROM EXCLUDED.inner_pad",
        [inner, outer],
    )


def _history_written_by_owner(
    cursor: CursorWrapper, quote: Callable[[str], str], schema: str
) -> int:
    """Make the functions that write history run as the owner, as triggers only; return how many.

    They are `_pgh_attach_context()` and every trigger function that calls it (the pghistory
    triggers). SECURITY DEFINER lets them write the tables the runtime role may only read; taking
    EXECUTE from PUBLIC stops anyone using one in a trigger of their own (a trigger fires
    whatever its caller's privileges). pgtrigger re-creates a trigger's function when the trigger
    changes, which resets all this, so it runs after every `migrate` with the grants.
    """
    cursor.execute(
        "SELECT p.oid::regprocedure::text, position(%s in p.prosrc) > 0 FROM pg_proc p "
        "WHERE p.proname = '_pgh_attach_context' AND p.pronargs = 0 "
        "AND p.pronamespace = current_schema()::regnamespace",
        [SIGNATURE_SETTING],
    )
    attach = cursor.fetchone()
    if attach is None or not attach[1]:
        # Something (pghistory's own installer) put back a function that takes any context.
        raise RoleError(
            "_pgh_attach_context() is not citerec's signed version: run `manage.py migrate` "
            "(curation 0010) and never PGHISTORY_INSTALL_CONTEXT_FUNC_ON_MIGRATE"
        )
    cursor.execute(
        "SELECT DISTINCT p.oid::regprocedure::text FROM pg_trigger t "
        "JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_class c ON c.oid = t.tgrelid "
        "WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal "
        "AND p.proowner = current_user::regrole AND p.prosrc LIKE %s",
        ["%\\_pgh\\_attach\\_context()%"],
    )
    functions = [attach[0], *(row[0] for row in cursor.fetchall())]
    for function in functions:
        cursor.execute(
            f"ALTER FUNCTION {function} SECURITY DEFINER SET search_path = {quote(schema)}, pg_temp"
        )
        cursor.execute(f"REVOKE EXECUTE ON FUNCTION {function} FROM PUBLIC")
    return len(functions)


# pgtrigger's trigger functions return early when the setting pgtrigger.ignore names their
# trigger; any role may set it, and trigger names are public (pg_trigger). This check runs
# after each statement on a table with pgtrigger triggers, when the history triggers themselves
# run (so a set_config() inside the statement counts too), and refuses the statement unless the
# setting is empty or the session acts as the table's owner, who could drop the triggers anyway.
# It is citerec's own function and trigger, not pgtrigger's: a migration that re-creates
# pgtrigger's functions (_pgtrigger_should_ignore included) leaves it in place. It needs no
# pinned search path (a SET clause would cost every statement a configuration save and restore):
# its one relation is schema-qualified, and its functions are pg_catalog's, which nothing the
# runtime role can create may shadow (no temporary functions, no schema of its own). The event tables
# (append-only triggers) go without it: the runtime role may not write them at all.
SKIP_GUARD = "citerec_history_not_skipped"
_SKIP_GUARD_FUNCTION = """
CREATE OR REPLACE FUNCTION {schema}.{guard}() RETURNS trigger AS $$
DECLARE
    _owner oid := (SELECT relowner FROM pg_catalog.pg_class WHERE oid = TG_RELID);
    _ignore text := coalesce(current_setting('pgtrigger.ignore', true), '');
BEGIN
    IF _ignore NOT IN ('', '{{}}') AND NOT (
        pg_has_role(session_user, _owner, 'USAGE') AND pg_has_role(current_user, _owner, 'USAGE')
    ) THEN
        RAISE EXCEPTION '% cannot skip history of %: pgtrigger.ignore is set to %',
            session_user, TG_TABLE_NAME, _ignore
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'history triggers are skipped only by the schema owner';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql
"""


def _history_not_skipped(cursor: CursorWrapper, quote: Callable[[str], str], schema: str) -> int:
    """Put the pgtrigger.ignore check on every table of the schema with pgtrigger triggers that
    the runtime role may write (not the history tables).

    Tables tracked by a later migration get it when this runs again after `migrate`; until
    then the runtime role may only read them (default privileges), so nothing is skipped.
    """
    s = quote(schema)
    cursor.execute(_SKIP_GUARD_FUNCTION.format(schema=s, guard=SKIP_GUARD))
    cursor.execute(
        "SELECT DISTINCT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal "
        "AND t.tgname LIKE %s ORDER BY 1",
        ["pgtrigger\\_%"],
    )
    history = set(history_tables())
    tables = [row[0] for row in cursor.fetchall() if row[0] not in history]
    for table in tables:
        cursor.execute(
            f"CREATE OR REPLACE TRIGGER {SKIP_GUARD} AFTER INSERT OR UPDATE OR DELETE "
            f"ON {s}.{quote(table)} FOR EACH STATEMENT EXECUTE FUNCTION {s}.{SKIP_GUARD}()"
        )
    return len(tables)
