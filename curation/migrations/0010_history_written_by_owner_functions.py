"""History is written only by the owner's functions, and a runtime session's context must be signed.

Before this, the runtime role could INSERT into the event tables and pghistory_context itself (a
backdated event, a context naming anyone), and set `pghistory.context_id`/`_metadata` to write
as "user:alice". Now (README "Database roles"):

- `_pgh_attach_context()` runs as its owner (SECURITY DEFINER, search path pinned). For a session
  that cannot act as the owner, it records the context only with a valid signature in
  `citerec.history_signature`: HMAC-SHA256 over (the connection's session secret, the context id
  text, the metadata text) with the key in `citerec_history_key`, which only the owner can read
  (written by `grant_runtime_role`). An owner session could rewrite history anyway, so it is not
  asked. The context is still insert-only (0004). Who recorded it, as the server saw it
  (`session_user`, backend pid, client address) and when, goes to
  `citerec_history_context_origin`, which only this function writes.
- The trigger functions that write events run as their owner too, and PUBLIC may not EXECUTE
  them (nor use them in a trigger of its own); `pgh_created_at` is their NOW(), the server's.
- Every role but the owner loses INSERT/UPDATE/DELETE/TRUNCATE on the event tables and
  pghistory_context here, so the runtime role keeps SELECT even before `grant_runtime_role` runs.

`grant_runtime_role` does the same after every `migrate` (pgtrigger re-creates a trigger's
function when the trigger changes, which resets SECURITY DEFINER).
"""

from __future__ import annotations

import importlib
from typing import Any

from django.db import migrations

ORIGIN_TABLE = "citerec_history_context_origin"
KEY_TABLE = "citerec_history_key"

ATTACH_CONTEXT = """
CREATE OR REPLACE FUNCTION {schema}._pgh_attach_context() RETURNS uuid AS $$
DECLARE
    _id_text text := NULLIF(current_setting('pghistory.context_id', true), '');
    _metadata_text text := NULLIF(current_setting('pghistory.context_metadata', true), '');
    -- Inside this function current_user is its owner; session_user is who logged in.
    _signed boolean := NOT pg_has_role(session_user, current_user, 'USAGE');
    _id uuid;
    _metadata jsonb;
BEGIN
    IF _id_text IS NULL OR _metadata_text IS NULL THEN
        RETURN NULL;  -- no context: the event tables' check constraint refuses
    END IF;
    IF _signed THEN
        IF to_regclass('{schema}.{key_table}') IS NULL THEN
            RAISE EXCEPTION 'history contexts cannot be checked: no signing key in this database'
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'run manage.py grant_runtime_role as the schema owner';
        END IF;
        -- Digests of both sides are compared, so the time taken tells nothing of a prefix.
        IF NOT EXISTS (
            SELECT 1 FROM {schema}.{key_table} k
            WHERE sha256(convert_to(current_setting('citerec.history_signature', true), 'UTF8'))
                = sha256(convert_to(encode(sha256(k.outer_pad || sha256(k.inner_pad || convert_to(
                    NULLIF(current_setting('citerec.history_session', true), '')
                    || E'\\n' || _id_text || E'\\n' || _metadata_text, 'UTF8'))), 'hex'), 'UTF8'))
        ) THEN
            RAISE EXCEPTION 'history context % is not signed by citerec', _id_text
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'only the application (curation.audit.audited) may set a history '
                             'context; its key comes from SECRET_KEY through grant_runtime_role';
        END IF;
    END IF;
    _id := _id_text::uuid;
    _metadata := _metadata_text::jsonb;
    INSERT INTO {schema}.pghistory_context (id, metadata, created_at, updated_at)
        VALUES (_id, _metadata, NOW(), NOW())
        ON CONFLICT (id) DO NOTHING;
    IF FOUND THEN
        INSERT INTO {schema}.{origin_table}
                (context_id, db_role, backend_pid, client_addr, signed, recorded_at)
            VALUES (_id, session_user, pg_backend_pid(), inet_client_addr(), _signed, NOW())
            ON CONFLICT (context_id) DO NOTHING;
    ELSIF NOT EXISTS (
        SELECT 1 FROM {schema}.pghistory_context WHERE id = _id AND metadata = _metadata
    ) THEN
        RAISE EXCEPTION 'history context % is recorded with other metadata', _id
            USING ERRCODE = 'integrity_constraint_violation',
                  HINT = 'a recorded history context cannot be changed';
    END IF;
    RETURN _id;
END;
$$ LANGUAGE plpgsql SECURITY DEFINER SET search_path = {schema}, pg_temp;
REVOKE EXECUTE ON FUNCTION {schema}._pgh_attach_context() FROM PUBLIC;
"""

ORIGIN = """
CREATE TABLE IF NOT EXISTS {schema}.{origin_table} (
    context_id uuid PRIMARY KEY,
    db_role name NOT NULL,
    backend_pid integer NOT NULL,
    client_addr inet,
    signed boolean NOT NULL,
    recorded_at timestamptz NOT NULL
);
COMMENT ON TABLE {schema}.{origin_table} IS
    'Who recorded each history context, as the server saw it; written only by _pgh_attach_context()';
"""

# Takes back, from every role but the owner, what lets a session write history itself.
# Default privileges may have given the runtime role INSERT on the new origin table.
REVOKE_HISTORY_WRITES = """
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT DISTINCT c.oid::regclass AS tbl, a.grantee
        FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
          AND a.grantee <> c.relowner
          AND a.privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE')
          AND (c.relname IN ('pghistory_context', '{origin_table}') OR EXISTS (
              SELECT 1 FROM pg_attribute f
              WHERE f.attrelid = c.oid AND f.attname = 'pgh_context_id' AND NOT f.attisdropped))
    LOOP
        EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON %s FROM %s', r.tbl,
            CASE WHEN r.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(r.grantee)) END);
    END LOOP;
END $$;
"""

# The functions of this schema's triggers that write events: each calls _pgh_attach_context().
EVENT_WRITERS = """
SELECT DISTINCT p.oid::regprocedure::text FROM pg_trigger t
JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_class c ON c.oid = t.tgrelid
WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
  AND p.proowner = current_user::regrole AND p.prosrc LIKE '%\\_pgh\\_attach\\_context()%'
"""


def _schema(schema_editor: Any) -> str:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT current_schema()")
        return str(schema_editor.connection.ops.quote_name(cursor.fetchone()[0]))


def write_history_as_owner(apps: Any, schema_editor: Any) -> None:
    """Install the signed context function and make the event writers run as their owner."""
    schema = _schema(schema_editor)
    names = {"schema": schema, "origin_table": ORIGIN_TABLE, "key_table": KEY_TABLE}
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(ORIGIN.format(**names))
        cursor.execute(ATTACH_CONTEXT.format(**names))
        cursor.execute(EVENT_WRITERS)
        for (function,) in cursor.fetchall():
            cursor.execute(
                f"ALTER FUNCTION {function} SECURITY DEFINER SET search_path = {schema}, pg_temp"
            )
            cursor.execute(f"REVOKE EXECUTE ON FUNCTION {function} FROM PUBLIC")
        cursor.execute(REVOKE_HISTORY_WRITES.format(**names))


def write_history_as_writer(apps: Any, schema_editor: Any) -> None:
    """Go back to 0004: unsigned insert-only contexts, event writers running as the caller."""
    schema = _schema(schema_editor)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(EVENT_WRITERS)
        for (function,) in cursor.fetchall():
            cursor.execute(f"ALTER FUNCTION {function} SECURITY INVOKER")
            cursor.execute(f"GRANT EXECUTE ON FUNCTION {function} TO PUBLIC")
        cursor.execute(f"DROP FUNCTION IF EXISTS {schema}._pgh_attach_context()")
    previous = importlib.import_module("curation.migrations.0004_history_context_insert_only")
    previous.install_insert_only(apps, schema_editor)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {schema}.{ORIGIN_TABLE}")


class Migration(migrations.Migration):
    dependencies = [
        ("curation", "0009_observation_identity_on_text_digest"),
    ]

    operations = [migrations.RunPython(write_history_as_owner, write_history_as_writer)]
