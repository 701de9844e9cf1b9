"""The staff review queue for notice events, and read-only lists of the notice data."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from curation.admin.records import ReadOnlyAdmin
from curation.audit import Actor
from curation.models import Observation
from curation.records import record_links
from curation.states import ChangeSource

from .models import (
    NoticeEvent,
    NoticeReview,
    RetractionWatchImport,
    RetractionWatchRecord,
    ReviewStatus,
    SourceReceipt,
)
from .selectors import affected_observations
from .services import review_decide

# The index shows the count of unreviewed retractions and expressions of concern.
admin.site.index_template = "notices/admin/index.html"


def admin_actor(request: HttpRequest) -> Actor:
    """Return the audit actor for a staff member acting in the admin."""
    user = request.user
    return Actor(name=f"user:{user.get_username()}", source=ChangeSource.ADMIN, user_id=user.pk)


class QueueFilter(admin.SimpleListFilter):
    """Show the open reviews unless another status is asked for."""

    title = "review status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [*ReviewStatus.choices, ("all", "all")]

    def choices(self, changelist: Any) -> Any:
        for lookup, title in self.lookup_choices:
            yield {
                "selected": (self.value() or ReviewStatus.NEW) == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value() or ReviewStatus.NEW
        return queryset if value == "all" else queryset.filter(status=value)


class DecisionForm(forms.ModelForm):
    """Confirm, or dismiss as a false match; either way with a note."""

    decision = forms.ChoiceField(
        choices=[
            (ReviewStatus.CONFIRMED, "Confirm: the notice concerns this work"),
            (ReviewStatus.DISMISSED, "Dismiss as a false match: it does not concern this work"),
        ],
        widget=forms.RadioSelect,
    )
    decision_note = forms.CharField(
        label="Note", widget=forms.Textarea(attrs={"rows": 3}), required=True, strip=True
    )

    class Meta:
        model = NoticeReview
        fields: list[str] = []


def _cited_by_count() -> Subquery:
    papers = (
        Observation.objects.filter(cited_work=OuterRef("event__work"), retired_at__isnull=True)
        .values("cited_work")
        .annotate(n=Count("paper", distinct=True))
        .values("n")
    )
    return Subquery(papers[:1])


@admin.register(NoticeReview)
class NoticeReviewAdmin(admin.ModelAdmin):
    """The queue: new events most severe first, with the citing papers they affect."""

    form = DecisionForm
    list_display = (
        "event_type",
        "work",
        "event_date",
        "source",
        "notice",
        "citing_papers",
        "status",
        "opened_at",
    )
    list_display_links = ("event_type",)
    list_filter = (QueueFilter, "event__type", "event__source")
    search_fields = ("=event__work__doi", "=event__work__arxiv_id", "=event__notice_doi")
    ordering = ("severity", "-opened_at")
    show_full_result_count = False
    fields = (
        "event_summary",
        "affected",
        "status",
        "reviewer",
        "note",
        "decision",
        "decision_note",
    )
    readonly_fields = ("event_summary", "affected", "status", "reviewer", "note")

    def get_queryset(self, request: HttpRequest) -> QuerySet[NoticeReview]:
        return (
            super()
            .get_queryset(request)
            .select_related("event__work", "reviewer")
            .annotate(cited_by=_cited_by_count())
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: NoticeReview, form: Any, change: bool) -> None:
        # The service writes (with who and why); the form itself changes no column.
        review_decide(
            review_id=obj.pk,
            decision=form.cleaned_data["decision"],
            note=form.cleaned_data["decision_note"],
            actor=admin_actor(request),
        )
        obj.refresh_from_db()

    @admin.display(description="event", ordering="severity")
    def event_type(self, obj: NoticeReview) -> str:
        superseded = " (superseded)" if obj.event.superseded else ""
        return f"{obj.event.get_type_display().capitalize()}{superseded}"

    @admin.display(description="cited work")
    def work(self, obj: NoticeReview) -> str:
        return str(obj.event.work)

    @admin.display(description="date", ordering="event__date")
    def event_date(self, obj: NoticeReview) -> Any:
        return obj.event.date

    @admin.display(description="source")
    def source(self, obj: NoticeReview) -> str:
        return obj.event.source

    @admin.display(description="notice")
    def notice(self, obj: NoticeReview) -> str:
        return obj.event.notice_doi or obj.event.notice_url or "—"

    @admin.display(description="citing papers")
    def citing_papers(self, obj: NoticeReview) -> int:
        return getattr(obj, "cited_by", None) or 0

    @admin.display(description="event")
    def event_summary(self, obj: NoticeReview) -> str:
        event = obj.event
        return format_html(
            "<b>{}</b> of {} reported by {} on {}; notice {}; record id {}; reasons: {}; "
            "first seen {}, last seen {}{}{}",
            event.get_type_display(),
            event.work,
            event.source,
            event.date or "an unknown date",
            event.notice_doi or event.notice_url or "—",
            event.source_record_id or "—",
            "; ".join(event.reasons) or "—",
            event.first_seen_at,
            event.last_seen_at,
            "; superseded by a later notice" if event.superseded else "",
            "; dismissed (not in the public record)" if event.dismissed else "",
        )

    @admin.display(description="citing papers and observations")
    def affected(self, obj: NoticeReview) -> str:
        rows = [
            (
                record_links(o.paper.arxiv_id)["html"],
                o.paper.arxiv_id,
                reverse("admin:curation_observation_change", args=[o.pk]),
                o.reference_index,
            )
            for o in affected_observations(obj.event.work_id)
        ]
        if not rows:
            return "No live observation cites this work."
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                '<li><a href="{}">arXiv:{}</a>, <a href="{}">reference {}</a></li>',
                rows,
            ),
        )


@admin.register(NoticeEvent)
class NoticeEventAdmin(ReadOnlyAdmin):
    list_display = ("type", "work", "date", "source", "notice_doi", "dismissed", "superseded")
    list_filter = ("source", "type", "dismissed", "superseded", "still_reported")
    search_fields = ("=work__doi", "=work__arxiv_id", "=notice_doi", "=source_record_id")
    list_select_related = ("work",)
    ordering = ("severity", "-date")


@admin.register(SourceReceipt)
class SourceReceiptAdmin(ReadOnlyAdmin):
    list_display = ("work", "source", "outcome", "observed_at", "events_found", "detail")
    list_filter = ("source", "outcome")
    search_fields = ("=work__doi", "=work__arxiv_id")
    list_select_related = ("work",)
    ordering = ("-observed_at",)


@admin.register(RetractionWatchRecord)
class RetractionWatchRecordAdmin(ReadOnlyAdmin):
    list_display = ("record_id", "nature", "original_doi", "retraction_date", "superseded")
    list_filter = ("nature", "superseded")
    search_fields = ("=record_id", "=original_doi", "=notice_doi")


@admin.register(RetractionWatchImport)
class RetractionWatchImportAdmin(ReadOnlyAdmin):
    list_display = ("file_name", "started_at", "rows_read", "created", "updated", "error_count")
