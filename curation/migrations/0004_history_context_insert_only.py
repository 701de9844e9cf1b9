"""Record history contexts insert-only, so the runtime role needs no UPDATE on pghistory_context.

pghistory's `_pgh_attach_context()` upserts the context row (ON CONFLICT DO UPDATE), which needs
UPDATE on the table and lets any writer rewrite the metadata of a recorded context. This version
inserts the row once and refuses different metadata under a recorded context id; `audited()`
gives every distinct actor/reason its own id, so an honest writer never asks for a change. The
search path is pinned so a temporary table cannot stand in for pghistory_context.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations


def install_insert_only(apps: Any, schema_editor: Any) -> None:
    """Replace pghistory's upserting context function with an insert-only one."""
    quote = schema_editor.connection.ops.quote_name
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT current_schema()")
        schema = quote(cursor.fetchone()[0])
        cursor.execute(
            f"""
            CREATE OR REPLACE FUNCTION {schema}._pgh_attach_context() RETURNS uuid AS $$
            DECLARE
                _id uuid := NULLIF(current_setting('pghistory.context_id', true), '')::uuid;
                _metadata jsonb :=
                    NULLIF(current_setting('pghistory.context_metadata', true), '')::jsonb;
            BEGIN
                IF _id IS NULL OR _metadata IS NULL THEN
                    RETURN NULL;  -- no context: the event tables' check constraint refuses
                END IF;
                INSERT INTO {schema}.pghistory_context (id, metadata, created_at, updated_at)
                    VALUES (_id, _metadata, NOW(), NOW())
                    ON CONFLICT (id) DO NOTHING;
                IF NOT FOUND AND NOT EXISTS (
                    SELECT 1 FROM {schema}.pghistory_context
                    WHERE id = _id AND metadata = _metadata
                ) THEN
                    RAISE EXCEPTION 'history context % is recorded with other metadata', _id
                        USING ERRCODE = 'integrity_constraint_violation',
                              HINT = 'a recorded history context cannot be changed';
                END IF;
                RETURN _id;
            END;
            $$ LANGUAGE plpgsql SET search_path = {schema}, pg_temp;
            """
        )


def install_pghistory_upsert(apps: Any, schema_editor: Any) -> None:
    """Put pghistory's own (upserting) context function back."""
    from pghistory.models import Context

    Context.install_pgh_attach_context_func(using=schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [
        ("pghistory", "0007_auto_20250421_0444"),
        ("curation", "0003_history_statement_level_and_queue_indexes"),
    ]

    operations = [migrations.RunPython(install_insert_only, install_pghistory_upsert)]
