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
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter, itemgetter
from typing import Any

import orjson
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import (
    AutoField,
    BooleanField,
    CharField,
    DateField,
    Field,
    ForeignKey,
    IntegerField,
    JSONField,
    Model,
    TextField,
    UUIDField,
)

# Columns whose Python value is already what the database gets (no conversion to skip).
_PLAIN = (CharField, TextField, IntegerField, BooleanField, UUIDField)


def _embedded(field: Field[Any, Any]) -> bool:
    """Return whether a JSON column's value travels inside the document as JSON itself.

    Without an encoder of its own, the value encodes exactly as the document does: it is read
    back as the recordset's jsonb (JSON null is SQL NULL, as Django stores None), instead of
    being encoded to text first, escaped once more inside the document and parsed twice by
    PostgreSQL. A field with an encoder keeps that encoder's text.
    """
    return isinstance(field, JSONField) and field.encoder is None


def _columns(fields: Sequence[Field[Any, Any]]) -> tuple[list[str], str]:
    """Return the quoted column names and the recordset's column definitions."""
    quote = connection.ops.quote_name
    names = [quote(str(f.column)) for f in fields]
    types = [
        ("jsonb" if _embedded(f) else "text") if isinstance(f, JSONField) else f.db_type(connection)
        for f in fields
    ]
    return names, ", ".join(f"{n} {t}" for n, t in zip(names, types, strict=True))


def _sets_on_save(field: Field[Any, Any]) -> bool:
    """Return whether saving a new row makes this column's value (auto_now_add and the like).

    A date field without auto_now(_add) only reads the attribute back: no per-row call.
    """
    if isinstance(field, DateField):
        return bool(field.auto_now or field.auto_now_add)
    return type(field).pre_save is not Field.pre_save


def _reader(field: Field[Any, Any], add: bool, mapping: bool, db: Any) -> Callable[[Any], Any]:
    """Return how a row's value of this column is read: decided once per statement (the
    checks cost more than the reads when done for every row and column). Rows are model
    instances, or mappings by attname (`mapping`), which cost no model construction."""
    if add and _sets_on_save(field):
        if mapping:
            raise TypeError(f"{field.attname} sets its value on save: give model instances")
        return lambda obj: _prepared(field, field.pre_save(obj, add), db)
    get = itemgetter(field.attname) if mapping else attrgetter(field.attname)
    if _embedded(field):
        return get
    if isinstance(field, JSONField):
        encoder = field.encoder
        return lambda obj: None if (value := get(obj)) is None else json.dumps(value, cls=encoder)
    target = field.target_field if isinstance(field, ForeignKey) else field
    if isinstance(target, _PLAIN):
        return get
    # A batch's rows mostly share one value of such a column (the batch's `now`): the same
    # object converts to the same value, so it is converted once.
    last: list[Any] = [None, None]

    def read(obj: Any) -> Any:
        value = get(obj)
        if value is not last[0]:
            last[:] = value, _prepared(field, value, db)
        return last[1]

    return read


def _prepared(field: Field[Any, Any], value: Any, db: Any) -> Any:
    if value is None or isinstance(field, _PLAIN):
        return value
    return field.get_db_prep_save(value, db)


def _document(fields: Sequence[Field[Any, Any]], rows: Sequence[Any], add: bool) -> str:
    # The connection object itself, once: `connection` is a proxy looked up on every use.
    db = connections[DEFAULT_DB_ALIAS]
    mapping = isinstance(rows[0], Mapping)
    readers = [(str(f.column), _reader(f, add, mapping, db)) for f in fields]
    return encode_document([{c: read(obj) for c, read in readers} for obj in rows])


def encode_document(document: list[dict[str, Any]]) -> str:
    """Return the document as JSON text: orjson (a chunk's evidence encodes 5-6x faster than
    with json.dumps), else the standard library for what orjson refuses (a dict key that is not
    a string, an integer beyond 64 bits), so every document that encoded before still does.

    Datetimes and UUIDs encode natively (ISO 8601 with "T" instead of str()'s space: the same
    instant to PostgreSQL); default=str covers decimals and the rest, as before.
    """
    try:
        return orjson.dumps(document, default=str).decode()
    except orjson.JSONEncodeError:
        return json.dumps(document, default=str)


def _read(names: list[str], fields: Sequence[Field[Any, Any]]) -> list[str]:
    """Return how each column is read from the recordset (JSON text cast back to jsonb)."""
    return [
        f"v.{n}::jsonb" if isinstance(f, JSONField) and not _embedded(f) else f"v.{n}"
        for n, f in zip(names, fields, strict=True)
    ]


def insert_rows(
    model: type[Model],
    rows: Sequence[Model] | Sequence[Mapping[str, Any]],
    *,
    skip_conflicts: bool = False,
    returning: Sequence[str] = (),
) -> list[tuple[Any, ...]]:
    """Insert these new rows in one statement; return the `returning` columns of those inserted.

    Every concrete column is written; an auto primary key left unset is made by the database
    (ask for it in `returning`). With `skip_conflicts`, a row that conflicts with one already
    there (a unique value another transaction wrote meanwhile) is left out: only the rows
    returned were inserted, and the caller matches them to its objects. Rows may be mappings
    by attname, every concrete column's (no model instance made; nothing marked as saved).
    """
    if not rows:
        return []
    meta = model._meta
    pk = meta.pk
    first = rows[0]
    auto_pk = (
        isinstance(pk, AutoField)
        and (first.get(pk.attname) if isinstance(first, Mapping) else first.pk) is None
    )
    fields = [f for f in meta.concrete_fields if not (auto_pk and f is pk)]
    columns = {f.name: f.column for f in meta.concrete_fields}
    names, definitions = _columns(fields)
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(names)}) "
        f"SELECT {', '.join(_read(names, fields))} FROM jsonb_to_recordset(%s::jsonb) AS v({definitions})"
    )
    if skip_conflicts:
        sql += " ON CONFLICT DO NOTHING"
    if returning:
        sql += " RETURNING " + ", ".join(quote(str(columns[n])) for n in returning)
    with connection.cursor() as cursor:
        cursor.execute(sql, [_document(fields, rows, add=True)])
        found = [tuple(row) for row in cursor.fetchall()] if returning else []
    if not skip_conflicts and not auto_pk and isinstance(first, Model):
        for obj in rows:  # saved, as after Model.save() or bulk_create
            obj._state.adding, obj._state.db = False, connection.alias  # type: ignore[union-attr]
    return found


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
