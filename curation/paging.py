"""A changelist paginator that never counts a large table: it asks the planner instead."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.core.paginator import Paginator

from curation.selectors import estimated_count


class EstimatedCountPaginator(Paginator):
    """Count exactly when the result is small, else use the planner's estimate."""

    @cached_property
    def count(self) -> int:  # type: ignore[override]
        """Return the number of rows, estimated on large results."""
        queryset: Any = self.object_list
        if not hasattr(queryset, "query"):
            return len(queryset)
        count, self.estimated = estimated_count(queryset)
        return count

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
