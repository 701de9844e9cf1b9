"""Admin screens for resolution: runs with their progress, catalogue works, disagreements."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from curation.paging import EstimatedCountPaginator
from curation.permissions import can_curate
from curation.resolution.models import (
    CrossrefWork,
    ImportCheckpoint,
    PinnedDisagreement,
    ResolutionRun,
    RunStatus,
)
from curation.resolution.services import run_dispatch

from . import admin_precision  # noqa: F401  (registers "Links to check" and the precision page)


@admin.register(ResolutionRun)
class ResolutionRunAdmin(admin.ModelAdmin):
    list_display = ["id", "created_at", "status", "progress_bar", "changed", "failed", "actor"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in ResolutionRun._meta.fields] + ["progress_bar"]
    actions = ["resume_runs"]

    @admin.display(description="progress")
    def progress_bar(self, run: ResolutionRun) -> str:
        """Show done/total with a bar."""
        return format_html(
            '<progress value="{}" max="{}"></progress> {}/{}',
            run.done, run.total or 1, run.done, run.total,
        )  # fmt: skip

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_resume_permission(self, request: HttpRequest) -> bool:
        """Curators may resume runs: runs are written only by jobs, so nobody holds "change"."""
        return can_curate(request)

    @admin.action(description="Resume: queue the unfinished chunks again", permissions=["resume"])
    def resume_runs(self, request: HttpRequest, queryset: QuerySet[ResolutionRun]) -> None:
        """Queue the unfinished chunks of the selected runs (done chunks are never redone)."""
        for run in queryset.exclude(status=RunStatus.DONE).order_by("pk"):
            queued = run_dispatch(run_id=run.pk)
            self.message_user(request, f"run {run.pk}: {queued} unfinished chunks queued again")


@admin.register(CrossrefWork)
class CrossrefWorkAdmin(admin.ModelAdmin):
    list_display = ["doi", "title", "year", "type", "first_author"]
    search_fields = ["=doi", "title_key"]
    list_filter = ["type"]
    show_full_result_count = False  # millions of rows: no COUNT(*) on every page
    paginator = EstimatedCountPaginator  # nor for the page numbers


@admin.register(PinnedDisagreement)
class PinnedDisagreementAdmin(admin.ModelAdmin):
    list_display = ["observation", "status", "resolver_source", "arxiv_id", "doi", "found_at"]
    list_filter = ["status"]
    raw_id_fields = ["observation"]


@admin.register(ImportCheckpoint)
class ImportCheckpointAdmin(admin.ModelAdmin):
    list_display = ["kind", "file_key", "line", "imported", "bad_lines", "finished", "updated_at"]
