"""Work-queue filters for the observation list: every one is an indexed condition."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from curation.selectors import WORK_QUEUES, work_queue
from curation.states import ResolutionStatus, ResolverSource


class QueueFilter(admin.SimpleListFilter):
    """The work queue: what still needs a curator, unless another list is asked for."""

    title = "work queue"
    parameter_name = "queue"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(q.key, q.label) for q in WORK_QUEUES.values()]

    def choices(self, changelist: Any) -> Any:
        current = work_queue(self.value()).key
        for lookup, title in self.lookup_choices:
            yield {
                "selected": current == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(work_queue(self.value()).condition)


class ChoiceFilter(admin.SimpleListFilter):
    """Filter on one resolution column by its choices (plus "never resolved")."""

    field = ""
    choices_enum: Any = None

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(c.value, c.label) for c in self.choices_enum] + [("none", "none")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value is None:
            return queryset
        if value == "none":
            return queryset.filter(**{f"{self.field}__isnull": True})
        return queryset.filter(**{self.field: value})


class StateFilter(ChoiceFilter):
    title = "state"
    parameter_name = "state"
    field = "resolution__status"
    choices_enum = ResolutionStatus


class ResolverSourceFilter(ChoiceFilter):
    title = "resolver source"
    parameter_name = "resolver_source"
    field = "resolution__resolver_source"
    choices_enum = ResolverSource


class PinnedFilter(admin.SimpleListFilter):
    title = "pinned by a curator"
    parameter_name = "pinned"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "pinned"), ("no", "not pinned")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() in ("yes", "no"):
            return queryset.filter(pinned=self.value() == "yes")
        return queryset


class PaperFilter(admin.SimpleListFilter):
    """One citing paper by arXiv id (a text box: there are too many papers to list)."""

    title = "citing paper"
    parameter_name = "paper"
    template = "curation/admin/input_filter.html"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("", "")]  # Django shows a filter only when it has lookups

    def choices(self, changelist: Any) -> Any:
        yield {
            "value": self.value() or "",
            "parameter_name": self.parameter_name,
            "others": {
                k: v for k, v in changelist.get_filters_params().items() if k != self.parameter_name
            },
            "reset": changelist.get_query_string(remove=[self.parameter_name]),
        }

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = (self.value() or "").strip().removeprefix("arXiv:")
        return queryset.filter(paper__arxiv_id=value) if value else queryset
