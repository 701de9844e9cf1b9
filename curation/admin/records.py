"""Read-only, searchable admin for the curated models curators do not edit here directly
(observations have their own screens in observations.py)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from curation.admin.paging import EstimatedCountPaginator
from curation.models import (
    CitedWork,
    ExternalCitationMeasurement,
    Paper,
    Resolution,
    StandingNotice,
    StandingSource,
)


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
    search_fields = ("=arxiv_id", "title", "doi")


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
