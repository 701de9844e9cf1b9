"""Admin screens for ingestion: each paper's state and why it failed, "Add papers", harvests."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.html import format_html

from curation.audit import Actor
from curation.ingestion import selectors
from curation.ingestion.models import HarvestState, IngestionState, PaperIngestion, SourceBundle
from curation.ingestion.services import ADD_REASON, MAX_IDS, papers_add
from curation.paging import EstimatedCountPaginator
from curation.permissions import can_curate
from curation.states import ChangeSource

# Warnings of a limit name its setting: "... the limit of 10,000 (CITEREC_MAX_SOURCE_REFERENCES)".
LIMIT_SETTING = "(CITEREC_MAX_"


class AddPapersForm(forms.Form):
    """A list of arXiv ids, one per line or separated by spaces or commas."""

    arxiv_ids = forms.CharField(
        label="arXiv ids",
        widget=forms.Textarea(attrs={"rows": 8, "placeholder": "2401.00001\nhep-th/9901001"}),
        help_text=f"Up to {MAX_IDS}, one per line (or separated by spaces or commas); a version is ignored.",
    )
    reason = forms.CharField(initial=ADD_REASON, max_length=2000)
    force = forms.BooleanField(required=False, help_text="Read the source again even if this version was read")

    def clean_arxiv_ids(self) -> list[str]:
        """Split the list; refuse more than the limit."""
        ids = self.cleaned_data["arxiv_ids"].replace(",", " ").split()
        if len(ids) > MAX_IDS:
            raise forms.ValidationError(f"{len(ids)} ids: at most {MAX_IDS} at a time")
        return ids


@admin.register(PaperIngestion)
class PaperIngestionAdmin(admin.ModelAdmin):
    # Few columns: beside the two sidebars the list has about 630 px at 1,280 (the rest is on
    # the details page and in the filters).
    list_display = ["paper_link", "state", "why", "reference_count", "finished_at"]
    # The paper column links the record page; the state opens the ingestion's details.
    list_display_links = ["state"]
    list_filter = ["state", "method", "source_kind"]
    search_fields = ["=paper__arxiv_id"]
    list_select_related = ["paper"]
    readonly_fields = [f.name for f in PaperIngestion._meta.fields]
    change_list_template = "ingestion/admin/ingestion_changelist.html"
    actions = ["ingest_again"]
    show_full_result_count = False
    paginator = EstimatedCountPaginator  # one ingestion per paper: no COUNT(*) of them all

    @admin.display(description="paper", ordering="paper__arxiv_id")
    def paper_link(self, ingestion: PaperIngestion) -> str:
        """Link the paper's record page."""
        arxiv_id = ingestion.paper.arxiv_id
        return format_html('<a href="/paper/{}/citation-record">arXiv:{}</a>', arxiv_id, arxiv_id)

    @admin.display(description="why")
    def why(self, ingestion: PaperIngestion) -> str:
        """The error, shortened for the list (blank when the state says it all); else what a
        limit left out of the list (references past the cap, texts cut), which the list must
        show: the record lacks them."""
        error = "" if ingestion.error == ingestion.get_state_display() else ingestion.error
        if not error:
            error = next((w for w in ingestion.warnings if LIMIT_SETTING in w), "")
        return error if len(error) < 160 else error[:157] + "..."

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # papers are added with the "Add papers" form

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        return super().get_actions(request) if can_curate(request) else {}

    @admin.action(description="Ingest again (read the source again)")
    def ingest_again(self, request: HttpRequest, queryset: QuerySet[PaperIngestion]) -> None:
        """Queue the selected papers again, forcing a new read of their source."""
        ids = list(queryset.values_list("paper__arxiv_id", flat=True))
        outcome = papers_add(arxiv_ids=ids, actor=Actor.for_user(request.user, ChangeSource.ADMIN),
                                   reason="ingest again from the admin", force=True)  # fmt: skip
        queued = len(outcome.queued)
        self.message_user(request, f"{queued} paper{'' if queued == 1 else 's'} queued again")

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [path("add-papers/", view(self.add_papers_view), name="ingestion_add_papers"),
                *super().get_urls()]  # fmt: skip

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        counts = selectors.ingestion_counts()
        states = [(value, label, counts[value]) for value, label in IngestionState.choices]
        context = {**(extra_context or {}), "states": states, "can_add_papers": can_curate(request)}
        return super().changelist_view(request, extra_context=context)

    def add_papers_view(self, request: HttpRequest) -> HttpResponse:
        """Take a list of arXiv ids and queue them; say which were refused and why."""
        if not can_curate(request):
            return HttpResponse("Adding papers is for curators.", status=403)
        form = AddPapersForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            outcome = papers_add(
                arxiv_ids=form.cleaned_data["arxiv_ids"],
                actor=Actor.for_user(request.user, ChangeSource.ADMIN),
                reason=form.cleaned_data["reason"], force=form.cleaned_data["force"],
            )  # fmt: skip
            if outcome.queued:
                messages.success(request, f"Queued {len(outcome.queued)}: {', '.join(outcome.queued)}")
            if outcome.active:
                messages.info(request, f"Already on their way: {', '.join(outcome.active)}")
            for refused in outcome.refused:
                messages.error(request, refused.why)
            if not outcome.refused:
                return HttpResponseRedirect(reverse("admin:ingestion_paperingestion_changelist"))
            # Shown again with only what was refused: sending it again never queues twice.
            form = AddPapersForm(initial={
                "arxiv_ids": "\n".join(r.given for r in outcome.refused),
                "reason": form.cleaned_data["reason"], "force": form.cleaned_data["force"],
            })  # fmt: skip
        context = {**self.admin_site.each_context(request), "form": form, "title": "Add papers from arXiv",
                   "opts": self.model._meta}  # fmt: skip
        return render(request, "ingestion/admin/add_papers.html", context)


@admin.register(HarvestState)
class HarvestStateAdmin(admin.ModelAdmin):
    list_display = ["set_spec", "last_datestamp", "harvested", "deleted", "cursor",
                    "complete_list_size", "updated_at"]  # fmt: skip
    readonly_fields = [f.name for f in HarvestState._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(SourceBundle)
class SourceBundleAdmin(admin.ModelAdmin):
    list_display = ["path", "total", "done", "failed", "created_at", "finished_at"]
    readonly_fields = [f.name for f in SourceBundle._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
