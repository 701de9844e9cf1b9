"""`field__any=values`: membership in a list sent as one array parameter (`= ANY(%s)`).

Django's `__in` turns every value into its own placeholder and checks each one for being an
expression: for the few hundred ids of a resolver chunk that was about a tenth of the worker's
CPU (building the SQL, then psycopg splitting and quoting the long statement), and PostgreSQL
parses a literal per value. One array parameter costs the same whatever the list's length.
Use it where the list is long; `__in` stays right for short lists and subqueries.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import models
from django.db.models import Lookup
from django.db.models.fields.related import ForeignObject

# The array type of each kind of column, cast so that a list of strings compares with it.
_ARRAY_TYPES = {
    "UUIDField": "uuid[]",
    "BigAutoField": "bigint[]",
    "BigIntegerField": "bigint[]",
    "AutoField": "integer[]",
    "IntegerField": "integer[]",
    "CharField": "text[]",
    "TextField": "text[]",
}


def _array_type(field: models.Field[Any, Any]) -> str:
    if isinstance(field, ForeignObject):  # a relation compares as its target column
        return _array_type(field.target_field)
    kind = field.get_internal_type()
    try:
        return _ARRAY_TYPES[kind]
    except KeyError:
        raise TypeError(f"__any is not defined for {kind}") from None


class AnyOf(Lookup):
    """`column = ANY(%s::type[])` with the values as one list."""

    lookup_name = "any"
    prepare_rhs = False

    def get_prep_lookup(self) -> list[Any]:
        values: Iterable[Any] = self.rhs
        # Strings as they are (the cast converts them); anything else as text: UUIDs, numbers.
        return [v if isinstance(v, str | int) else str(v) for v in values]

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        cast = _array_type(self.lhs.output_field)
        return f"{lhs} = ANY(%s::{cast})", [*lhs_params, self.rhs]


models.Field.register_lookup(AnyOf)
# Relations keep a lookup table of their own (Django's RelatedIn and the like).
ForeignObject.register_lookup(AnyOf)
