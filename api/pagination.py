"""Keyset cursor pagination over a fixed column order: stable under inserts, cheap at depth."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any
from uuid import UUID

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError
from django.db.models import Q, QuerySet
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

CURSOR_PARAM = "cursor"
SIZE_PARAM = "page_size"
PAGE_PARAMS = frozenset({CURSOR_PARAM, SIZE_PARAM})


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    return value


@contextmanager
def cursor_errors() -> Iterator[None]:
    """Turn a tampered cursor whose values do not fit the columns into a 400, never a 500."""
    try:
        yield
    except (ValueError, TypeError, DjangoValidationError, DataError) as exc:
        raise ValidationError({CURSOR_PARAM: "not a cursor this API issued"}) from exc


def _after(fields: tuple[str, ...], values: list[Any]) -> Q:
    """Return rows strictly after values in the (ascending) order of fields."""
    condition = Q()
    for i, name in enumerate(fields):
        step = Q(**dict(zip(fields[:i], values[:i], strict=True)))
        condition |= step & Q(**{f"{name}__gt": values[i]})
    return condition


class Cursor(BasePagination):
    """Opaque cursors holding the last row's sort key; the view's `cursor_ordering` sets it."""

    page_size = 50
    max_page_size = 200
    ordering: tuple[str, ...] = ("pk",)

    def _size(self, request: Request) -> int:
        raw = request.query_params.get(SIZE_PARAM)
        if raw is None:
            return self.page_size
        if not raw.isdigit() or not 1 <= int(raw) <= self.max_page_size:
            raise ValidationError({SIZE_PARAM: f"an integer from 1 to {self.max_page_size}"})
        return int(raw)

    def _decode(self, raw: str) -> list[Any]:
        try:
            values = json.loads(base64.urlsafe_b64decode(raw.encode("ascii")))
        except (ValueError, UnicodeError, binascii.Error) as exc:
            raise ValidationError({CURSOR_PARAM: "not a cursor this API issued"}) from exc
        if not isinstance(values, list) or len(values) != len(self.ordering):
            raise ValidationError({CURSOR_PARAM: "not a cursor for this ordering"})
        if not all(isinstance(v, str | int) for v in values):
            raise ValidationError({CURSOR_PARAM: "not a cursor this API issued"})
        return values

    def _encode(self, row: Any) -> str:
        values = [_jsonable(getattr(row, name)) for name in self.ordering]
        return base64.urlsafe_b64encode(json.dumps(values).encode()).decode("ascii")

    def page_queryset(
        self, queryset: QuerySet[Any], request: Request, view: Any = None
    ) -> QuerySet[Any]:
        """Return the rows of the page after the cursor, and one more (is there a next page?).

        Nothing is read yet: run it inside cursor_errors(), then hand the rows to take().
        """
        self.size = self._size(request)
        self.request = request
        # The view names its sort key: unique, ascending, made of plain columns or annotations.
        self.ordering = getattr(view, "cursor_ordering", self.ordering)
        queryset = queryset.order_by(*self.ordering)
        raw = request.query_params.get(CURSOR_PARAM)
        with cursor_errors():
            if raw:
                queryset = queryset.filter(_after(self.ordering, self._decode(raw)))
        return queryset[: self.size + 1]

    def take(self, rows: list[Any]) -> list[Any]:
        """Return the page's rows from what page_queryset read, noting the next page's cursor."""
        size = self.size
        self.next_cursor = self._encode(rows[size - 1]) if len(rows) > size else None
        return rows[:size]

    def paginate_queryset(
        self, queryset: QuerySet[Any], request: Request, view: Any = None
    ) -> list[Any]:
        """Return one page of rows after the cursor, in the view's order."""
        page = self.page_queryset(queryset, request, view)
        with cursor_errors():
            rows = list(page)
        return self.take(rows)

    def page_data(self, results: list[Any]) -> dict[str, Any]:
        """Return a page as the API shows it: the link to the next one, then the rows."""
        next_url = None
        if self.next_cursor is not None:
            next_url = replace_query_param(
                self.request.build_absolute_uri(), CURSOR_PARAM, self.next_cursor
            )
        return {"next": next_url, "next_cursor": self.next_cursor, "results": results}

    def get_paginated_response(self, data: Any) -> Response:
        """Wrap a page with the link to the next one."""
        return Response(self.page_data(data))

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Describe a page for the OpenAPI schema."""
        return {
            "type": "object",
            "required": ["next", "next_cursor", "results"],
            "properties": {
                "next": {"type": "string", "nullable": True, "format": "uri"},
                "next_cursor": {"type": "string", "nullable": True},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        """Document the cursor and page size parameters."""
        return [
            {
                "name": CURSOR_PARAM,
                "in": "query",
                "required": False,
                "description": "The next_cursor of the previous page.",
                "schema": {"type": "string", "maxLength": 256},
            },
            {
                "name": SIZE_PARAM,
                "in": "query",
                "required": False,
                "description": f"Rows per page (1 to {self.max_page_size}).",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_page_size},
            },
        ]
