"""Read-only, searchable admin for the curated models curators do not edit here directly
(observations have their own screens in observations.py)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.postgres.search import SearchQuery, SearchVector
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from curation.models import (
    CitedWork,
    ExternalCitationMeasurement,
    Paper,
    Resolution,
    StandingNotice,
    StandingSource,
)
from curation.paging import EstimatedCountPaginator
from curation.references import normalize_title
from curation.references.identifiers import canonical_arxiv_id, canonical_doi


class ReadOnlyAdmin(admin.ModelAdmin):
    """Show and search, never write: writes go through services that record who and why."""

    # No full-table count on any page of a large table: not for "N results" (the flag), nor
    # for the page numbers (the paginator: the planner's estimate above 20,000 rows).
    show_full_result_count = False
    paginator = EstimatedCountPaginator

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Paper)
class PaperAdmin(ReadOnlyAdmin):
    list_display = ("arxiv_id", "title", "primary_category", "latest_version", "in_catalogue")
    list_filter = ("in_catalogue",)
    search_fields = ("=arxiv_id", "title", "doi")  # what the search box says it searches

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Paper], search_term: str
    ) -> tuple[QuerySet[Paper], bool]:
        """Search by index only: an arXiv id or a DOI exactly, else the title's words.

        The catalogue holds every arXiv paper (2.7 million): Django's search, an ILIKE
        '%word%' on title and DOI, read all of them for every search (bench/README-scale.md).
        """
        term = search_term.strip()
        if not term:
            return queryset, False
        arxiv_id = canonical_arxiv_id(term)
        if arxiv_id:
            return queryset.filter(arxiv_id=arxiv_id), False
        doi = canonical_doi(term)
        if doi:
            return queryset.filter(Q(doi=doi) | Q(doi=term)), False
        # The expression of the paper_title_fts index, so the index answers it.
        words = SearchQuery(normalize_title(term), config="simple", search_type="plain")
        title = SearchVector("title_norm", config="simple")
        return queryset.annotate(title_document=title).filter(title_document=words), False


@admin.register(Resolution)
class ResolutionAdmin(ReadOnlyAdmin):
    list_display = ("observation", "status", "resolver_source", "origin", "observed_at")
    list_filter = ("status", "resolver_source", "origin")
    search_fields = ("=observation__id", "=observation__paper__arxiv_id")
    list_select_related = ("observation__paper",)


@admin.register(StandingNotice)
class StandingNoticeAdmin(ReadOnlyAdmin):
    list_display = ("observation", "state", "reason", "origin", "refreshed_at")
    list_filter = ("state", "reason", "origin")
    search_fields = ("=observation__id", "=observation__paper__arxiv_id")
    list_select_related = ("observation__paper",)


@admin.register(CitedWork)
class CitedWorkAdmin(ReadOnlyAdmin):
    list_display = ("doi", "arxiv_id", "title", "created_at")
    search_fields = ("=doi", "=arxiv_id", "title")


@admin.register(ExternalCitationMeasurement)
class ExternalCitationMeasurementAdmin(ReadOnlyAdmin):
    list_display = ("paper", "source", "count", "observed_at")
    search_fields = ("=paper__arxiv_id", "source")


@admin.register(StandingSource)
class StandingSourceAdmin(ReadOnlyAdmin):
    list_display = ("name", "label")
    search_fields = ("name", "label")
