"""The curator's observation screens: the work queue, the observation page with its
decisions, the per-observation history, and the global change log."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.options import ShowFacets
from django.contrib.postgres.search import SearchQuery, SearchVector
from django.db.models import Q, QuerySet
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from curation.models import Observation, Paper
from curation.services.observations import CurationError, StaleRevision

from . import bulk
from .common import can_curate, curator_actor
from .decisions import DECISIONS
from .filters import PaperFilter, PinnedFilter, QueueFilter, ResolverSourceFilter, StateFilter
from .forms import KEEP_CURRENT, parse_identifier
from .history import observation_changes
from .log import LogFilterForm, log_page, parse_cursor
from .page import observation_page_context
from .paging import EstimatedCountPaginator

_RAW_SHOWN = 110


def _best(key: str) -> KeyTextTransform:
    """Return one key of the evidence's first (best) candidate, read in SQL."""
    first = KeyTransform("0", KeyTransform("candidates", "resolution__evidence"))
    return KeyTextTransform(key, first)


def text_search(queryset: QuerySet[Observation], term: str) -> QuerySet[Observation]:
    """Search by identifier when the term is one, else by words of the title and raw text."""
    try:
        scheme, value = parse_identifier(term)
    except Exception:  # noqa: BLE001 - not an identifier: a word search
        scheme, value = "", ""
    if scheme == "arxiv":
        # Paper ids first: an OR over joined tables would defeat every index.
        papers = list(Paper.objects.filter(arxiv_id=value).values_list("pk", flat=True))
        return queryset.filter(
            Q(paper_id__in=papers)
            | Q(cited_paper_id__in=papers)
            | Q(work_arxiv_id=value)
            | Q(work_pith_arxiv_id=value)
        )
    if scheme == "doi":
        return queryset.filter(work_doi=value)
    try:
        return queryset.filter(pk=uuid.UUID(term))
    except ValueError:
        pass
    # Full-text on title and raw text ("simple" config, as the catalogue search): a GIN index
    # on this very expression keeps it fast without pg_trgm.
    vector = SearchVector("work_title", "raw_text", config="simple")
    return queryset.annotate(search=vector).filter(search=SearchQuery(term, config="simple"))


@admin.register(Observation)
class ObservationAdmin(admin.ModelAdmin):
    """The work queue and the curator's page for one reference."""

    list_display = ("reference", "raw", "parsed_title", "state", "best_candidate", "flags")
    list_display_links = ("reference",)
    list_filter = (QueueFilter, StateFilter, ResolverSourceFilter, PinnedFilter, PaperFilter)
    list_per_page = 50
    list_max_show_all = 0
    show_full_result_count = False
    show_facets = ShowFacets.NEVER
    paginator = EstimatedCountPaginator
    search_fields = ("work_title",)  # shows the search box; get_search_results does the work
    search_help_text = "Words of the title or raw text, an arXiv id, or a DOI."
    actions = [bulk.make_action(a) for a in bulk.ACTIONS]
    ordering = ("paper_id", "reference_index", "id")
    change_list_template = "curation/admin/observation_changelist.html"

    # --- the queue -----------------------------------------------------------------------

    def get_queryset(self, request: HttpRequest) -> QuerySet[Observation]:
        # The evidence JSON is large: only its best candidate is read, in SQL.
        return (
            super()
            .get_queryset(request)
            .select_related("paper", "resolution")
            .defer("resolution__evidence")
            .annotate(
                best_arxiv=_best("arxiv_id"),
                best_doi=_best("doi"),
                best_title=_best("title"),
                best_score=_best("score"),
            )
        )

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Observation], search_term: str
    ) -> tuple[QuerySet[Observation], bool]:
        term = search_term.strip()
        return (text_search(queryset, term) if term else queryset), False

    @admin.display(description="reference", ordering="reference_index")
    def reference(self, obj: Observation) -> str:
        return format_html(
            '<span class="cr-paper">{}</span> <b>[{}]</b>', obj.paper.arxiv_id, obj.reference_index
        )

    @admin.display(description="raw text")
    def raw(self, obj: Observation) -> str:
        text = obj.raw_text or ""
        if not text:
            return mark_safe('<span class="cr-muted">imported, no raw text</span>')
        return text if len(text) <= _RAW_SHOWN else text[: _RAW_SHOWN - 1] + "…"

    @admin.display(description="parsed title")
    def parsed_title(self, obj: Observation) -> str:
        return obj.work_title or "—"

    @admin.display(description="state", ordering="resolution__status")
    def state(self, obj: Observation) -> str:
        resolution = getattr(obj, "resolution", None)
        status = resolution.status if resolution else "unresolved"
        source = resolution.resolver_source if resolution and resolution.resolver_source else ""
        return format_html(
            '<span class="cr-state cr-state-{}">{}</span><br><span class="cr-muted">{}</span>',
            status, status.replace("_", " "), source,
        )  # fmt: skip

    @admin.display(description="best candidate")
    def best_candidate(self, obj: Any) -> str:
        ident = f"arXiv:{obj.best_arxiv}" if obj.best_arxiv else obj.best_doi
        if not ident:
            return "—"
        title = (obj.best_title or "")[:80]
        return format_html(
            '<b class="cr-score">{}</b> {}<br><span class="cr-muted">{}</span>',
            obj.best_score or "", ident, title,
        )  # fmt: skip

    @admin.display(description="")
    def flags(self, obj: Observation) -> str:
        shown = [
            ("pinned", obj.pinned),
            ("no record", obj.no_canonical_record),
            ("retired", obj.retired_at is not None),
        ]
        return format_html_join(
            "", '<span class="cr-flag">{}</span>', ((k,) for k, on in shown if on)
        )

    # --- permissions: decisions go through the observation page, never the model form -----

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # junk is retired (kept in history), never deleted

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_curate(request)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        return super().get_actions(request) if can_curate(request) else {}

    # --- the observation page ------------------------------------------------------------

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path("log/", view(self.log_view), name="curation_observation_log"),
            *super().get_urls(),
        ]

    def _get(self, request: HttpRequest, object_id: str) -> Observation:
        try:
            pk = uuid.UUID(object_id)
        except ValueError as exc:
            raise Http404("not an observation id") from exc
        obj = (
            Observation.objects.select_related("paper", "resolution", "cited_paper", "cited_work")
            .filter(pk=pk)
            .first()
        )
        if obj is None or not self.has_view_or_change_permission(request, obj):
            raise Http404("unknown observation")
        return obj

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        """Show one reference with everything needed to decide; apply a posted decision."""
        obj = self._get(request, object_id)
        if request.method == "POST":
            return self._decide(request, obj)
        return self._render(request, obj, status=200)

    def _render(
        self,
        request: HttpRequest,
        obj: Observation,
        *,
        status: int,
        bound: Any = None,
        action: str | None = None,
        stale: StaleRevision | None = None,
        conflict: bool = False,
    ) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            **observation_page_context(
                obj,
                can_change=can_curate(request),
                with_proposal=request.GET.get("rerun") == "1",
                bound=bound,
                action=action,
                conflict=conflict or stale is not None,
            ),
            "opts": self.model._meta,
            "stale": stale,
            "title": f"{obj.paper.arxiv_id} reference {obj.reference_index}",
        }
        return TemplateResponse(
            request, "curation/admin/observation_page.html", context, status=status
        )

    def _decide(self, request: HttpRequest, obj: Observation) -> HttpResponse:
        if not can_curate(request):
            messages.error(request, "You may look at references but not change them.")
            return self._render(request, obj, status=403)
        action = request.POST.get("action", "")
        decision = DECISIONS.get(action)
        if decision is None:
            return self._render(request, obj, status=400)
        form = decision.form(request.POST, auto_id=f"id_{action}_%s")
        answering_conflict = bool(request.POST.get("conflict"))
        if not form.is_valid():
            # A refused decision saved again without a choice stays in the conflict panel.
            return self._render(
                request, obj, status=400, bound=form, action=action, conflict=answering_conflict
            )
        if answering_conflict and form.cleaned_data["choice"] == KEEP_CURRENT:
            messages.info(
                request,
                f"Kept the current version (revision {obj.revision}); what you entered was not saved.",
            )
            return HttpResponseRedirect(request.path)
        try:
            message = decision.handle(obj, form, curator_actor(request))
        except StaleRevision as exc:
            # Nothing was written: show the other curator's change, the current values beside
            # the curator's own, and ask for an explicit choice before saving again.
            fresh = self._get(request, str(obj.pk))
            return self._render(request, fresh, status=409, bound=form, action=action, stale=exc)
        except CurationError as exc:
            messages.error(request, str(exc))
            return self._render(
                request, self._get(request, str(obj.pk)), status=400, bound=form, action=action
            )
        messages.success(request, message)
        return HttpResponseRedirect(request.path)

    # --- history ---------------------------------------------------------------------------

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: Any = None
    ) -> HttpResponse:
        """Show who changed the reference, when and why, field by field; offer reverts."""
        obj = self._get(request, object_id)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "observation": obj,
            "changes": observation_changes(obj.pk),
            "can_change": can_curate(request),
            "title": f"History of {obj.paper.arxiv_id} reference {obj.reference_index}",
            "change_url": reverse("admin:curation_observation_change", args=[obj.pk]),
        }
        return TemplateResponse(request, "curation/admin/observation_history.html", context)

    def log_view(self, request: HttpRequest) -> HttpResponse:
        """Show every change to curated data, newest first, one keyset page at a time."""
        if not self.has_view_or_change_permission(request):
            raise Http404("no access")
        form = LogFilterForm(request.GET or None)
        data = form.cleaned_data if form.is_bound and form.is_valid() else {}
        entries, following = log_page(data, parse_cursor(request.GET.get("after", "")))
        query = request.GET.copy()
        query.pop("after", None)
        if following:
            query["after"] = following
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Change log",
            "form": form,
            "entries": entries,
            "next_query": query.urlencode() if following else None,
        }
        return TemplateResponse(request, "curation/admin/change_log.html", context)
