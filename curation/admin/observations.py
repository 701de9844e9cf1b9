"""The curator's observation screens: the work queue, the observation page with its
decisions, the per-observation history, and the global change log."""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.options import ShowFacets
from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from curation.audit import Actor
from curation.models import Observation
from curation.paging import EstimatedCountPaginator
from curation.permissions import can_curate
from curation.resolution.candidates import agreement, candidate_view
from curation.search import text_matches
from curation.selectors import (
    observation_for_page,
    paper_pk,
    queue_observations,
    searched_elsewhere,
    text_condition,
    work_queue,
)
from curation.services.observations import CurationError, StaleRevision
from curation.states import ChangeSource

from . import bulk
from .decisions import DECISIONS
from .describe import best_text
from .filters import PaperFilter, PinnedFilter, QueueFilter, ResolverSourceFilter, StateFilter
from .forms import KEEP_CURRENT, parse_identifier
from .history import observation_changes
from .log import LogFilterForm, log_page, parse_cursor
from .page import observation_page_context
from .queue import QueueWalk, remember_reason, remembered_reasons
from .screens import WORK_QUEUE
from .undo import with_undo

# What the queue reads of the best candidate (in SQL), besides its identifiers and title.
_BEST_CHECKS = ("title_similarity", "title_exact", "year_check", "author_check", "venue_check")


def _best(key: str) -> KeyTextTransform:
    """Return one key of the evidence's first (best) candidate, read in SQL."""
    first = KeyTransform("0", KeyTransform("candidates", "resolution__evidence"))
    return KeyTextTransform(key, first)


def text_search(queryset: QuerySet[Observation], term: str) -> QuerySet[Observation]:
    """Search words, hosts, path parts and identifiers of the reference text and its fields.

    An arXiv id or DOI also finds what is linked to it, and a UUID the observation itself.
    """
    try:
        scheme, value = parse_identifier(term)
    except ValidationError:  # not an identifier: words, hosts, paths
        scheme, value = "", ""
    if scheme == "arxiv":
        # Paper ids first: an OR over joined tables would defeat every index.
        papers = [pk] if (pk := paper_pk(value)) is not None else []
        return queryset.filter(
            Q(paper_id__in=papers)
            | Q(cited_paper_id__in=papers)
            | Q(work_arxiv_id=value)
            | Q(work_pith_arxiv_id=value)
            | text_matches(value)
        )
    if scheme == "doi":
        return queryset.filter(Q(work_doi=value) | text_matches(value))
    try:
        return queryset.filter(pk=uuid.UUID(term))
    except ValueError:
        pass
    return queryset.filter(text_condition(term))


def decision_data(posted: QueryDict) -> QueryDict:
    """Return the posted decision with its action and identifier made explicit.

    The page has one Decide form: a candidate's Accept button posts `candidate` (and saves and
    goes to the next reference, as "Save and next" does), a panel's
    button posts `do` (its action), and "accept the top candidate" takes `top_candidate`.
    """
    data = posted.copy()
    do, candidate = str(data.get("do") or ""), str(data.get("candidate") or "")
    if do:
        data["action"] = do
    if candidate:
        data["action"] = "accept_candidate"
        data["_next"] = "1"  # a candidate's own Accept moves on, as the `a` key does
    if data.get("action") == "accept_candidate":
        chosen = candidate or data.get("top_candidate") or data.get("identifier") or ""
        data["identifier"] = str(chosen)
    for key in ("do", "candidate", "top_candidate"):
        data.pop(key, None)
    return data


@admin.register(Observation)
class ObservationAdmin(admin.ModelAdmin):
    """The work queue and the curator's page for one reference."""

    # Three columns: they fit beside both sidebars at 1,280 px (state and flags go with the number).
    list_display = ("reference", "text", "best_candidate")
    list_display_links = ("reference",)
    list_filter = (QueueFilter, StateFilter, ResolverSourceFilter, PinnedFilter, PaperFilter)
    list_per_page = 50
    list_max_show_all = 0
    show_full_result_count = False
    show_facets = ShowFacets.NEVER
    paginator = EstimatedCountPaginator
    search_fields = ("work_title",)  # shows the search box; get_search_results does the work
    search_help_text = (
        "Words of the reference or its title, a host or path (github, NVIDIA/apex), "
        "an arXiv id, or a DOI."
    )
    actions = [bulk.make_action(a) for a in bulk.ACTIONS]
    ordering = ("paper_id", "reference_index", "id")
    change_list_template = "curation/admin/observation_changelist.html"

    # --- the queue -----------------------------------------------------------------------

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        response = super().changelist_view(request, {"title": WORK_QUEUE, **(extra_context or {})})
        changelist = getattr(response, "context_data", {}).get("cl")
        if changelist is not None and changelist.query.strip() and changelist.result_count == 0:
            self._say_where_else(request, changelist)
        return response

    def _say_where_else(self, request: HttpRequest, changelist: Any) -> None:
        """A search that finds nothing in this queue says which other queues it finds
        references in, with links (a decided reference is not "to fix")."""
        term, current = changelist.query.strip(), work_queue(request.GET.get("queue"))
        elsewhere = [
            (changelist.get_query_string({"queue": queue.key}), queue.label)
            for queue in searched_elsewhere(current.key)
            if text_search(queue_observations(queue.key), term).exists()
        ]
        if elsewhere:
            messages.info(request, format_html(
                "Nothing in “{}” matches “{}”; it is found in: {}.", current.label, term,
                format_html_join(", ", '<a href="{}">{}</a>', elsewhere),
            ))  # fmt: skip

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
                **{f"best_{k}": _best(k) for k in _BEST_CHECKS},
            )
        )

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Observation], search_term: str
    ) -> tuple[QuerySet[Observation], bool]:
        term = search_term.strip()
        return (text_search(queryset, term) if term else queryset), False

    @admin.display(description="reference, state", ordering="reference_index")
    def reference(self, obj: Observation) -> str:
        return format_html(
            '<span class="cr-paper">{}</span>&nbsp;<b>[{}]</b><br>{}{}',
            obj.paper.arxiv_id, obj.reference_index, self.state(obj), self.flags(obj),
        )  # fmt: skip

    @admin.display(description="reference text (or what an imported record describes)")
    def text(self, obj: Observation) -> str:
        shown, raw = best_text(obj)
        if raw:
            return shown
        return format_html('<span class="cr-muted">imported:</span> {}', shown)

    @admin.display(description="state", ordering="resolution__status")
    def state(self, obj: Observation) -> str:
        resolution = getattr(obj, "resolution", None)
        status = resolution.status if resolution else "unresolved"
        source = resolution.resolver_source if resolution and resolution.resolver_source else ""
        return format_html(
            '<span class="cr-state cr-state-{}">{}</span> <span class="cr-muted">{}</span>',
            status, status.replace("_", " "), source,
        )  # fmt: skip

    @admin.display(description="top candidate, score 0–100")
    def best_candidate(self, obj: Any) -> str:
        if not (obj.best_arxiv or obj.best_doi):
            return "—"
        best = candidate_view(
            {
                "arxiv_id": obj.best_arxiv,
                "doi": obj.best_doi,
                "title": obj.best_title,
                "score": obj.best_score,
                "title_exact": obj.best_title_exact == "true",
                **{k: getattr(obj, f"best_{k}") for k in _BEST_CHECKS if k != "title_exact"},
            }
        )
        return format_html(
            '<b class="cr-score">{}</b> <a href="{}" target="_blank" rel="noopener">{}</a>'
            '<br>{}<br><span class="cr-muted">{}</span>',
            "—" if best.score is None else best.score,
            best.url,
            best.identifier,
            best.title[:90],
            agreement(best),
        )

    @admin.display(description="")
    def flags(self, obj: Observation) -> str:
        shown = [
            ("pinned", obj.pinned),
            ("no record", obj.no_canonical_record),
            ("retired", obj.retired_at is not None),
        ]
        return format_html_join(
            "", ' <span class="cr-flag">{}</span>', ((k,) for k, on in shown if on)
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
            path("<path:object_id>/next/", view(self.next_view), name="curation_observation_next"),
            *super().get_urls(),
        ]

    def _get(self, request: HttpRequest, object_id: str) -> Observation:
        try:
            pk = uuid.UUID(object_id)
        except ValueError as exc:
            raise Http404("not an observation id") from exc
        obj = observation_for_page(pk)
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
        refused: CurationError | None = None,
    ) -> HttpResponse:
        walk = self.walk(request)
        context = {
            **self.admin_site.each_context(request),
            **observation_page_context(
                obj,
                can_change=can_curate(request),
                with_proposal=request.GET.get("rerun") == "1",
                bound=bound,
                action=action,
                conflict=conflict or stale is not None,
                refused=refused,
            ),
            "opts": self.model._meta,
            "stale": stale,
            "title": f"{obj.paper.arxiv_id} reference {obj.reference_index}",
            "queue": walk,
            "self_url": walk.page_url(obj),
            "skip_url": walk.skip_url(obj),
            "reasons_json": json.dumps(remembered_reasons(request), ensure_ascii=False),
        }
        return TemplateResponse(
            request, "curation/admin/observation_page.html", context, status=status
        )

    def walk(self, request: HttpRequest) -> QueueWalk:
        """Return the queue this page was opened from (its filters and search), to walk it."""
        return QueueWalk(self, request, request.GET.get("_changelist_filters", ""))

    def next_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Skip: open the next reference of the same queue, filters and search (writes nothing)."""
        obj = self._get(request, object_id)
        return HttpResponseRedirect(self.walk(request).after(obj, request))

    def _decide(self, request: HttpRequest, obj: Observation) -> HttpResponse:
        if not can_curate(request):
            messages.error(request, "You may look at references but not change them.")
            return self._render(request, obj, status=403)
        data = decision_data(request.POST)
        action = data.get("action", "")
        decision = DECISIONS.get(action)
        if decision is None:
            return self._render(request, obj, status=400)
        form = decision.form(data, auto_id=f"id_{action}_%s")
        answering_conflict = bool(data.get("conflict"))
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
            return HttpResponseRedirect(request.get_full_path())
        try:
            done = decision.handle(obj, form, Actor.for_user(request.user, ChangeSource.ADMIN))
        except StaleRevision as exc:
            # Nothing was written: show the other curator's change, the current values beside
            # the curator's own, and ask for an explicit choice before saving again.
            fresh = self._get(request, str(obj.pk))
            return self._render(request, fresh, status=409, bound=form, action=action, stale=exc)
        except CurationError as exc:
            messages.error(request, str(exc))
            fresh = self._get(request, str(obj.pk))
            return self._render(request, fresh, status=400, bound=form, action=action, refused=exc)
        remember_reason(request, request.POST, form.cleaned_data["reason"])
        message: str = done.message
        if done.after is not None:  # one reference changed: its message carries an undo
            before, url = form.cleaned_data["revision"], self.walk(request).page_url(done.after)
            message = with_undo(request, message, done.after, before, url)
        if data.get("_next"):
            where = f"{obj.paper.arxiv_id} [{obj.reference_index}]: "
            messages.success(request, format_html("{}{}", where, message))
            return HttpResponseRedirect(self.walk(request).after(obj, request))
        messages.success(request, message)
        return HttpResponseRedirect(request.get_full_path())

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
