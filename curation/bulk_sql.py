"""Many rows in one statement with one parameter: a JSON array read by `jsonb_to_recordset`.

Django's `bulk_create` sends one array parameter per column and `bulk_update` a `CASE WHEN` per
row and column; with psycopg's client-side binding every element of every parameter is quoted in
Python, which cost more than the verdicts themselves on a chunk of a few hundred rows. Here the
rows go as one JSON document (encoded in C), and PostgreSQL turns it back into typed columns.
The statements are ordinary INSERT/UPDATE statements: triggers (history) and the audit context
see them as they would see Django's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import (
    BooleanField,
    CharField,
    Field,
    ForeignKey,
    IntegerField,
    JSONField,
    Model,
    TextField,
    UUIDField,
)


def _columns(fields: Sequence[Field[Any, Any]]) -> tuple[list[str], str]:
    """Return the quoted column names and the recordset's column definitions."""
    quote = connection.ops.quote_name
    names = [quote(str(f.column)) for f in fields]
    # JSON columns travel as the text their field's encoder made (exactly what Django sends).
    types = ["text" if isinstance(f, JSONField) else f.db_type(connection) for f in fields]
    return names, ", ".join(f"{n} {t}" for n, t in zip(names, types, strict=True))


# Columns whose Python value is already what the database gets (no conversion to skip).
_PLAIN = (CharField, TextField, IntegerField, BooleanField, UUIDField)


def _value(field: Field[Any, Any], obj: Model, add: bool) -> Any:
    value = field.pre_save(obj, add) if add else getattr(obj, field.attname)
    if isinstance(field, JSONField):
        return None if value is None else json.dumps(value, cls=field.encoder)
    target = field.target_field if isinstance(field, ForeignKey) else field
    if value is None or isinstance(target, _PLAIN):
        return value
    return field.get_db_prep_save(value, connection)


def _document(fields: Sequence[Field[Any, Any]], rows: Sequence[Model], add: bool) -> str:
    # default=str: datetimes, UUIDs and decimals as PostgreSQL reads them back (same instant,
    # same value); a JSON column's text is already a string.
    return json.dumps(
        [{str(f.column): _value(f, obj, add) for f in fields} for obj in rows], default=str
    )


def _read(names: list[str], fields: Sequence[Field[Any, Any]]) -> list[str]:
    """Return how each column is read from the recordset (JSON text cast back to jsonb)."""
    return [
        f"v.{n}::jsonb" if isinstance(f, JSONField) else f"v.{n}"
        for n, f in zip(names, fields, strict=True)
    ]


def insert_rows(model: type[Model], rows: Sequence[Model]) -> None:
    """Insert these new rows (every concrete column, primary keys set by the caller)."""
    if not rows:
        return
    fields = list(model._meta.concrete_fields)
    names, definitions = _columns(fields)
    sql = (
        f"INSERT INTO {connection.ops.quote_name(model._meta.db_table)} ({', '.join(names)}) "
        f"SELECT {', '.join(_read(names, fields))} FROM jsonb_to_recordset(%s::jsonb) AS v({definitions})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [_document(fields, rows, add=True)])
    for obj in rows:  # saved, as after Model.save() or bulk_create
        obj._state.adding, obj._state.db = False, connection.alias


def update_rows(model: type[Model], rows: Sequence[Model], names: Sequence[str]) -> None:
    """Write these columns of these rows (matched on the primary key) in one statement."""
    if not rows:
        return
    meta = model._meta
    fields: list[Field[Any, Any]] = [meta.pk, *(meta.get_field(n) for n in names)]  # type: ignore[list-item]
    columns, definitions = _columns(fields)
    values = _read(columns, fields)
    sets = ", ".join(f"{c} = {v}" for c, v in zip(columns[1:], values[1:], strict=True))
    sql = (
        f"UPDATE {connection.ops.quote_name(meta.db_table)} AS t SET {sets} "
        f"FROM jsonb_to_recordset(%s::jsonb) AS v({definitions}) "
        f"WHERE t.{columns[0]} = v.{columns[0]}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [_document(fields, rows, add=False)])
