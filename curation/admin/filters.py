"""Work-queue filters for the observation list: every one is an indexed condition."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from curation.states import ResolutionStatus, ResolverSource

_S = ResolutionStatus
TO_FIX = (_S.UNRESOLVED, _S.METADATA_MISMATCH, _S.PARSE_UNCERTAIN, _S.MALFORMED_IDENTIFIER)
LIVE = Q(retired_at__isnull=True)

QUEUES: dict[str, tuple[str, Q]] = {
    "to_fix": (
        "to fix",
        LIVE
        & Q(no_canonical_record=False)
        & (Q(resolution__status__in=TO_FIX) | Q(resolution__isnull=True)),
    ),
    "spot_check": ("verified fuzzy (spot-check)", LIVE & Q(resolution__status=_S.VERIFIED_FUZZY)),
    "disagreements": (
        "resolver disagrees with curator",
        LIVE & Q(pinned=True, resolver_disagreement__isnull=False),
    ),
    "no_record": ("no canonical record", LIVE & Q(no_canonical_record=True)),
    "live": ("all live references", LIVE),
    "retired": ("retired", Q(retired_at__isnull=False)),
}
DEFAULT_QUEUE = "to_fix"


class QueueFilter(admin.SimpleListFilter):
    """The work queue: what still needs a curator, unless another list is asked for."""

    title = "work queue"
    parameter_name = "queue"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(key, label) for key, (label, _) in QUEUES.items()]

    def choices(self, changelist: Any) -> Any:
        current = self.value() or DEFAULT_QUEUE
        for lookup, title in self.lookup_choices:
            yield {
                "selected": current == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        _, condition = QUEUES.get(self.value() or DEFAULT_QUEUE, QUEUES[DEFAULT_QUEUE])
        return queryset.filter(condition)


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
