"""Filters of the list endpoints: validated by django-filter, so a bad value is a 400."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import django_filters as filters
from django.db.models import Q, QuerySet

from curation.models import CitedWork, Observation, Paper
from curation.record.selectors import papers_changed_since
from curation.states import ResolutionStatus, ResolverSource


class PaperFilter(filters.FilterSet):
    """Search papers by title; filter by category and submission date."""

    search = filters.CharFilter(
        method="filter_search", help_text="Words that must all appear in the title."
    )
    category = filters.CharFilter(
        method="filter_category", help_text="An arXiv category, e.g. cs.LG (primary or cross-list)."
    )
    submitted_after = filters.DateFilter(field_name="submitted_at", lookup_expr="date__gte")
    submitted_before = filters.DateFilter(field_name="submitted_at", lookup_expr="date__lte")
    updated_after = filters.DateFilter(field_name="last_updated", lookup_expr="date__gte")

    class Meta:
        model = Paper
        fields: list[str] = []

    def filter_search(self, queryset: QuerySet[Paper], name: str, value: str) -> QuerySet[Paper]:
        """Keep papers whose title holds every word (case-insensitive)."""
        for word in value.split()[:10]:
            queryset = queryset.filter(title__icontains=word)
        return queryset

    def filter_category(self, queryset: QuerySet[Paper], name: str, value: str) -> QuerySet[Paper]:
        """Keep papers listed in the category; categories are stored space-separated."""
        value = value.strip()
        return queryset.filter(
            Q(primary_category=value) | Q(categories__regex=rf"(^|\s){_regex_literal(value)}(\s|$)")
        )


def _regex_literal(value: str) -> str:
    """Escape value for a PostgreSQL regular expression."""
    return "".join(f"\\{c}" if not c.isalnum() else c for c in value)


def strict_boolean(**kwargs: Any) -> filters.TypedChoiceFilter:
    """Return a true/false filter that refuses anything else (a 400, not an ignored filter)."""
    return filters.TypedChoiceFilter(
        choices=[("true", "true"), ("false", "false")], coerce=lambda v: v == "true", **kwargs
    )


class ObservationFilter(filters.FilterSet):
    """Filter observations by paper, state, resolver source, notice, pin, link, and change time."""

    paper = filters.CharFilter(field_name="paper__arxiv_id", help_text="Citing paper's arXiv id.")
    cited_paper = filters.CharFilter(field_name="cited_paper__arxiv_id")
    cited_work = filters.NumberFilter(field_name="cited_work_id")
    state = filters.ChoiceFilter(
        choices=ResolutionStatus.choices,
        method="filter_state",
        help_text="Resolution state; never-resolved observations count as unresolved.",
    )
    resolver_source = filters.ChoiceFilter(
        field_name="resolution__resolver_source", choices=ResolverSource.choices
    )
    has_notice = strict_boolean(
        method="filter_has_notice",
        help_text="True: a source reports an event (retraction, correction, ...) for the cited work.",
    )
    pinned = strict_boolean()
    changed_since = filters.IsoDateTimeFilter(
        method="filter_changed_since",
        help_text=(
            "Substantive changes at or after this time (ISO 8601). Includes retired "
            "observations as tombstones (retired: true); deleted ones are at /observations/deleted."
        ),
    )

    class Meta:
        model = Observation
        fields: list[str] = []

    def filter_state(
        self, queryset: QuerySet[Observation], name: str, value: str
    ) -> QuerySet[Observation]:
        """Keep observations in the state, as v1 shows it."""
        if value == ResolutionStatus.UNRESOLVED:
            return queryset.filter(Q(resolution__status=value) | Q(resolution__isnull=True))
        return queryset.filter(resolution__status=value)

    def filter_has_notice(
        self, queryset: QuerySet[Observation], name: str, value: bool
    ) -> QuerySet[Observation]:
        """Keep observations whose notice lists events (or, for false, lists none)."""
        with_events = Q(standing_notice__isnull=False) & ~Q(standing_notice__events=[])
        return queryset.filter(with_events if value else ~with_events)

    def filter_changed_since(
        self, queryset: QuerySet[Observation], name: str, value: datetime
    ) -> QuerySet[Observation]:
        """Keep substantive changes since value, retired ones included (the view widens the set)."""
        return queryset.filter(changed_at__gte=value)


class CitedWorkFilter(filters.FilterSet):
    """Look a cited work up by DOI (case-insensitive) or arXiv id."""

    doi = filters.CharFilter(method="filter_doi")
    arxiv_id = filters.CharFilter()

    class Meta:
        model = CitedWork
        fields: list[str] = []

    def filter_doi(
        self, queryset: QuerySet[CitedWork], name: str, value: str
    ) -> QuerySet[CitedWork]:
        """Match the stored (lower-cased) DOI; accept doi.org URLs and doi: prefixes."""
        doi = value.strip().lower()
        for prefix in ("https://doi.org/", "http://doi.org/", "http://dx.doi.org/", "doi:"):
            doi = doi.removeprefix(prefix)
        return queryset.filter(doi=doi)


class RecordChangeFilter(filters.FilterSet):
    """Records whose observations (outbound or inbound) changed substantively since a time."""

    changed_since = filters.IsoDateTimeFilter(
        method="filter_changed_since",
        help_text="Records whose observations changed substantively at or after this time.",
    )

    class Meta:
        model = Paper
        fields: list[str] = []

    def filter_changed_since(
        self, queryset: QuerySet[Paper], name: str, value: datetime
    ) -> QuerySet[Paper]:
        """Keep papers with an observation (outbound or inbound) changed since value."""
        return papers_changed_since(queryset, since=value)
