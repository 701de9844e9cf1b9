"""A changelist paginator that never counts a large table: it asks the planner instead."""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any

from django.core.paginator import Paginator
from django.db import connections

# Below this planner estimate an exact count is cheap enough to be worth it.
EXACT_COUNT_BELOW = 20_000


def planner_rows(queryset: Any) -> int:
    """Return PostgreSQL's estimate of how many rows the queryset returns."""
    compiler = queryset.query.get_compiler(using=queryset.db)
    sql, params = compiler.as_sql()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


class EstimatedCountPaginator(Paginator):
    """Count exactly when the result is small, else use the planner's estimate."""

    @cached_property
    def count(self) -> int:  # type: ignore[override]
        """Return the number of rows, estimated on large results."""
        queryset: Any = self.object_list
        if not hasattr(queryset, "query"):
            return len(queryset)
        estimate = planner_rows(queryset.order_by())
        if estimate < EXACT_COUNT_BELOW:
            self.estimated = False
            return int(queryset.order_by().count())
        self.estimated = True
        return estimate

    estimated = False

    def validate_number(self, number: Any) -> int:
        """Accept any page number: an estimated count may be off, an empty page is fine."""
        try:
            value = int(number)
        except (TypeError, ValueError):
            value = 1
        return max(value, 1)

    def page(self, number: Any) -> Any:
        """Return a page without checking it against the (estimated) page count."""
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        return self._get_page(self.object_list[bottom : bottom + self.per_page], number, self)  # type: ignore[attr-defined]
