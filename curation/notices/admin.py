"""The staff review queue for notice events, and read-only lists of the notice data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from curation.admin.records import ReadOnlyAdmin
from curation.admin.screens import NOTICES_TO_REVIEW
from curation.audit import Actor
from curation.moments import moment_html, moment_text
from curation.people import actor_names, person, user_name
from curation.record.builder import record_links
from curation.states import ChangeSource

from .models import (
    NoticeEvent,
    NoticeReview,
    RetractionWatchImport,
    RetractionWatchRecord,
    ReviewStatus,
    SourceReceipt,
)
from .selectors import QUEUE, affected_observations, citing_papers_count, described_title
from .services.review import StaleReview, last_review_change, review_decide, review_history

# The index shows the count of unreviewed retractions and expressions of concern.
admin.site.index_template = "notices/admin/index.html"


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
        if value == ReviewStatus.NEW:
            return queryset.filter(QUEUE)  # the queue, as the admin index counts it
        return queryset if value == "all" else queryset.filter(status=value)


KEEP_MINE, KEEP_CURRENT = "mine", "current"
CONFLICT_CHOICES = [
    (KEEP_MINE, "Save my decision and note over the current ones"),
    (KEEP_CURRENT, "Keep the current decision (discard mine)"),
]


class DecisionForm(forms.ModelForm):
    """Confirm, or dismiss as a false match; either way with a note, on the revision shown.

    A decision made on a page another reviewer has since changed is refused: the form comes
    back with the current decision beside the reviewer's own, and saves again only with an
    explicit choice made on the revision shown there (nothing is merged).
    """

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
    revision = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    conflict_revision = forms.IntegerField(widget=forms.HiddenInput, required=False)
    on_conflict = forms.ChoiceField(
        label="Your decision was not saved",
        choices=CONFLICT_CHOICES,
        required=False,
        widget=forms.HiddenInput,
    )

    class Meta:
        model = NoticeReview
        fields: list[str] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # What the reviewer saw: the stored values when the page was drawn.
        self.fields["revision"].initial = self.instance.revision
        self.before = (self.instance.status, self.instance.note, self.instance.revision)
        self.conflict: ReviewConflict | None = None
        self.expected_revision: int | None = None
        self.keep_current = False

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        current = self.instance.revision
        shown, choice = data.get("conflict_revision"), data.get("on_conflict")
        if data.get("revision") == current:
            self.expected_revision = current
        elif shown == current and choice == KEEP_MINE:
            self.expected_revision = current  # chosen on the current values, shown beside
        elif shown == current and choice == KEEP_CURRENT:
            self.keep_current = True
        elif data.get("revision") is not None:
            self._refuse(current)
        return data

    def _refuse(self, current: int) -> None:
        """Show the current values beside the reviewer's and ask for an explicit choice."""
        review = self.instance
        self.conflict = ReviewConflict(
            changed=describe_review_change(review),
            changed_html=describe_review_change(review, html=True),
            rows=[
                ("Decision", self.data.get("decision") or "—", review.status),
                ("Note", self.data.get("decision_note") or "—", review.note or "—"),
            ],
        )
        # The revision of the values shown goes into its own field: the stale `revision`
        # posted again, without a choice, is refused again.
        data: Any = dict(self.data.items())
        data["conflict_revision"], data["on_conflict"] = str(current), ""
        self.data = data
        self.fields["on_conflict"].widget = forms.RadioSelect(choices=CONFLICT_CHOICES)
        self.add_error("on_conflict", "choose whether your decision replaces the current one")
        raise forms.ValidationError(
            f"Not saved: {self.conflict.changed}. Compare, then choose below."
        )


@dataclass
class ReviewConflict:
    """A refused decision: who changed the review, and (what, yours, current) rows."""

    changed: str
    changed_html: str  # the same, with the time in a <time> element
    rows: list[tuple[str, str, str]]


def describe_review_change(review: NoticeReview, *, html: bool = False) -> str:
    """Return who last changed the review, when, and why, in one sentence (text or HTML)."""
    change = last_review_change(review.pk)
    who = person(change) if change else "someone"
    at = change.get("at") or review.decided_at
    why = change.get("reason") or "no reason recorded"
    if html:
        return format_html(
            "{} made it {} at {} ({}); it is now revision {}",
            who, review.status, moment_html(at), why, review.revision,
        )  # fmt: skip
    return f"{who} made it {review.status} at {moment_text(at)} ({why}); it is now revision {review.revision}"


@admin.register(NoticeReview)
class NoticeReviewAdmin(admin.ModelAdmin):
    """The queue: new events most severe first, with the citing papers they affect."""

    form = DecisionForm
    # Five columns: they fit beside both sidebars at 1,280 px.
    list_display = ("event_type", "work", "notice", "citing_papers", "status")
    list_display_links = ("event_type",)
    list_filter = (QueueFilter, "event__type", "event__source")
    search_fields = ("=event__work__doi", "=event__work__arxiv_id", "=event__notice_doi")
    ordering = ("severity", "-opened_at")
    show_full_result_count = False
    change_form_template = "notices/admin/review_change_form.html"
    change_list_template = "notices/admin/review_change_list.html"
    readonly_fields = (
        "cited_work",
        "event_summary",
        "affected",
        "status",
        "reviewer_name",
        "note",
        "decisions",
    )
    # What the page shows, in order, then the decision form's own inputs.
    fields = (
        *readonly_fields,
        "decision",
        "decision_note",
        "revision",
        "conflict_revision",
        "on_conflict",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[NoticeReview]:
        return (
            super()
            .get_queryset(request)
            .select_related("event__work", "reviewer")
            .annotate(cited_by=citing_papers_count())
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        return super().changelist_view(
            request, {"title": NOTICES_TO_REVIEW, **(extra_context or {})}
        )

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> Any:
        review = self.get_object(request, object_id) if object_id else None
        if review is not None:
            extra_context = {
                "title": review_title(review),
                "subtitle": f"Review {review.get_status_display()} · revision {review.revision}",
                **(extra_context or {}),
            }
        try:
            response = super().changeform_view(request, object_id, form_url, extra_context)
        except StaleReview:
            # Changed between the form's check and the service's: the admin's transaction
            # rolled back, and the form, drawn again on the stored review, shows the conflict.
            response = super().changeform_view(request, object_id, form_url, extra_context)
        return _conflict_status(response)

    def save_model(self, request: HttpRequest, obj: NoticeReview, form: Any, change: bool) -> None:
        # The service writes (with who and why) on the revision the reviewer decided on; the
        # form itself changes no column.
        if form.keep_current:
            status, _, revision = form.before  # the stored values: the instance holds the posted ones
            kept = f"{ReviewStatus(status).label}, revision {revision}"
            setattr(obj, _KEPT_CURRENT, kept)
            return
        review_decide(
            review_id=obj.pk,
            decision=form.cleaned_data["decision"],
            note=form.cleaned_data["decision_note"],
            expected_revision=form.expected_revision,
            actor=Actor.for_user(request.user, ChangeSource.ADMIN),
        )
        obj.refresh_from_db()

    def response_change(self, request: HttpRequest, obj: NoticeReview) -> HttpResponse:
        """Say what happened: a kept decision saved nothing, so it must not say "changed"."""
        kept = getattr(obj, _KEPT_CURRENT, None)
        if kept:
            messages.info(
                request, f"Nothing changed: the current decision ({kept}) was kept; yours was not saved."
            )
            return HttpResponseRedirect(request.get_full_path())
        return super().response_change(request, obj)

    def construct_change_message(
        self, request: HttpRequest, form: Any, formsets: Any, add: bool = False
    ) -> list[dict[str, dict[str, list[str]]]]:
        """Return the change with its values: decision and note before and after."""
        status, note, revision = form.before
        if form.keep_current:
            kept = f"nothing: the current decision ({status}, revision {revision}) was kept"
            return [{"changed": {"fields": [kept]}}]
        after = form.instance
        values = [
            f"decision from {status} to {after.status}",
            f"note from {note!r} to {after.note!r}",
            f"revision from {revision} to {after.revision}",
        ]
        return [{"changed": {"fields": values}}]

    @admin.display(description="reviewer")
    def reviewer_name(self, obj: NoticeReview) -> str:
        return user_name(obj.reviewer) if obj.reviewer else "—"

    @admin.display(description="decisions so far")
    def decisions(self, obj: NoticeReview) -> str:
        history = review_history(obj.pk)
        names = actor_names(change.actor for change in history)
        rows = [
            (
                moment_html(change.at),
                names[change.actor],
                change.source,
                change.status,
                change.note or "—",
                change.revision,
            )
            for change in history
        ]
        return format_html(
            '<table id="review-history"><tr><th>when</th><th>who</th><th>from</th>'
            "<th>decision</th><th>note</th><th>revision</th></tr>{}</table>",
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                rows,
            ),
        )

    @admin.display(description="event", ordering="severity")
    def event_type(self, obj: NoticeReview) -> str:
        superseded = " (superseded)" if obj.event.superseded else ""
        return format_html(
            "{}{}<br><span class=\"quiet\">{}</span>",
            obj.event.get_type_display().capitalize(), superseded, obj.event.date or "no date",
        )  # fmt: skip

    @admin.display(description="cited work")
    def work(self, obj: NoticeReview) -> str:
        work = obj.event.work
        title = work_title(work)
        return format_html(
            "{}<br><span class=\"quiet\">{}</span>",
            title[:90] + ("…" if len(title) > 90 else "") if title else "(no title known)",
            work,
        )  # fmt: skip

    @admin.display(description="notice")
    def notice(self, obj: NoticeReview) -> str:
        return format_html("{}<br>{}", obj.event.source, notice_link(obj.event))

    @admin.display(description="citing papers")
    def citing_papers(self, obj: NoticeReview) -> int:
        return getattr(obj, "cited_by", None) or 0

    @admin.display(description="cited work")
    def cited_work(self, obj: NoticeReview) -> str:
        work = obj.event.work
        ids = []
        if work.doi:
            ids.append(format_html('<a href="https://doi.org/{}">doi:{}</a>', work.doi, work.doi))
        if work.arxiv_id:
            ids.append(
                format_html(
                    '<a href="https://arxiv.org/abs/{}">arXiv:{}</a>', work.arxiv_id, work.arxiv_id
                )
            )
        return format_html(
            '<b id="review-work-title">{}</b><br>{}',
            work_title(work) or "(no title known)",
            format_html_join(" · ", "{}", ((i,) for i in ids)),
        )

    @admin.display(description="event")
    def event_summary(self, obj: NoticeReview) -> str:
        event = obj.event
        flags = [
            text
            for text, on in (
                ("superseded by a later notice", event.superseded),
                ("dismissed (not in the public record)", event.dismissed),
            )
            if on
        ]
        rows = [
            ("type", event.get_type_display().capitalize()),
            ("date", event.date or "unknown"),
            ("source", event.source),
            ("notice", notice_link(event)),
            ("source record", event.source_record_id or "—"),
            ("reasons", "; ".join(event.reasons) or "—"),
            ("first seen / last seen", format_html("{} / {}", moment_html(event.first_seen_at), moment_html(event.last_seen_at))),
            *([("note", "; ".join(flags))] if flags else []),
        ]  # fmt: skip
        return format_html(
            '<table id="review-event">{}</table>',
            format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", rows),
        )

    @admin.display(description="citing papers and observations")
    def affected(self, obj: NoticeReview) -> str:
        rows = [
            (
                record_links(o.paper.arxiv_id)["html"],
                o.paper.arxiv_id,
                o.paper.title or "",
                reverse("admin:curation_observation_change", args=[o.pk]),
                o.reference_index,
            )
            for o in affected_observations(obj.event.work_id)
        ]
        if not rows:
            return "No live observation cites this work."
        return format_html(
            '<ul id="review-affected">{}</ul>',
            format_html_join(
                "",
                '<li><a href="{}">arXiv:{}</a> {} — <a href="{}">reference [{}]</a></li>',
                rows,
            ),
        )


# Set on a review whose reviewer kept the current decision (nothing was saved): what was kept.
_KEPT_CURRENT = "_kept_current_decision"


def _conflict_status(response: Any) -> Any:
    """Answer a refused decision with 409, as the observation page does (the panel is shown)."""
    if isinstance(response, TemplateResponse) and response.context_data:
        adminform = response.context_data.get("adminform")
        if adminform is not None and getattr(adminform.form, "conflict", None):
            response.status_code = 409
    return response


def work_title(work: Any) -> str:
    """Return the cited work's title, or the title its citing references describe."""
    if work.title:
        return str(work.title)
    return described_title(work)


def notice_link(event: NoticeEvent) -> str:
    """Return the notice as a link: its DOI, or its URL."""
    if event.notice_doi:
        return format_html(
            '<a href="https://doi.org/{}">doi:{}</a>', event.notice_doi, event.notice_doi
        )
    if event.notice_url:
        return format_html('<a href="{}">{}</a>', event.notice_url, event.notice_url)
    return "—"


def review_title(review: NoticeReview) -> str:
    """Return the page title: the event and the work ("Retraction of “Title”")."""
    event = review.event
    title = work_title(event.work) or str(event.work)
    shown = title if len(title) <= 80 else title[:79] + "…"
    return f"{event.get_type_display().capitalize()} of “{shown}”"


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
