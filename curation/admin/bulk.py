"""Bulk actions on the work queue: a confirmation page with a reason, then one call of the bulk
service (curation.services.bulk), which writes the whole action in one transaction and history
context. The confirmation page carries the revisions it showed (hidden "seen" fields), so an
observation changed since is skipped and reported, never overwritten."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from curation.audit import Actor
from curation.models import Observation
from curation.permissions import can_curate
from curation.resolution.candidates import agreement, top_candidate
from curation.selectors import same_text_observations
from curation.services.bulk import merge_keeper, observations_bulk_decide
from curation.services.observations import CurationError
from curation.states import ChangeSource

from .describe import best_text
from .forms import BulkForm, parse_seen, seen_pairs

BULK_LIMIT = 2000


@dataclass(frozen=True)
class BulkAction:
    """A bulk action as the admin offers it: its title, verb and what the confirmation asks."""

    name: str  # one of curation.services.bulk.BULK_ACTIONS
    title: str
    verb: str
    asks_threshold: bool = False


def _seen(request: HttpRequest) -> dict[str, int]:
    """Return the revisions the curator saw on the confirmation page, by observation id."""
    return parse_seen(request.POST.getlist("seen"))


ACTIONS = [
    BulkAction(
        "accept_top_candidate",
        "Accept the top candidate when its score is above a threshold",
        "Accepted the top candidate",
        asks_threshold=True,
    ),
    BulkAction(
        "mark_parse_uncertain",
        "Mark as parse_uncertain",
        "Marked parse_uncertain",
    ),
    BulkAction(
        "mark_no_canonical_record",
        "Mark as having no canonical record",
        "Marked no canonical record",
    ),
    BulkAction(
        "rerun_resolver", "Re-run the resolver (pinned decisions are kept)", "Re-ran the resolver"
    ),
    BulkAction(
        "apply_same_text",
        "Apply this decision to every reference with the same text",
        "Applied the decision",
    ),
    BulkAction("merge_duplicates", "Merge duplicates (keep the lowest reference number)", "Merged"),
    BulkAction("retire_junk", "Delete junk (retire: kept in history, revertible)", "Retired"),
]


def _shown(o: Observation) -> dict[str, Any]:
    """Return a row of the confirmation page: the best text we have and the top candidate."""
    text, raw = best_text(o, limit=160)
    resolution = getattr(o, "resolution", None)
    top = top_candidate(resolution.evidence if resolution else None)
    return {
        "o": o,
        "text": text,
        "raw": raw,
        "top": top,
        "agreement": agreement(top) if top else "",
    }


def _confirm_context(action: BulkAction, rows: list[Observation]) -> dict[str, Any]:
    extra: dict[str, Any] = {"seen": seen_pairs(rows)}
    if action.name == "apply_same_text" and len(rows) == 1:
        targets = list(same_text_observations(rows[0]).only("id", "revision"))
        extra["same_text_count"] = len(targets)
        extra["seen"] += seen_pairs(targets)  # the targets are written at the revisions shown
    if action.name == "merge_duplicates" and rows:
        extra["keep"] = merge_keeper(rows)
        extra["papers"] = len({o.paper_id for o in rows})
    return extra


def run_bulk(
    action: BulkAction, modeladmin: Any, request: HttpRequest, queryset: QuerySet[Observation]
) -> Any:
    """Show the confirmation page, or apply the action once confirmed with a reason."""
    if not can_curate(request):
        messages.error(request, "You may look at references but not change them.")
        return None
    selected = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
    if selected and request.POST.get("select_across") != "1":
        # The rows the curator ticked, even those that left the queue since (decided by
        # someone else): the revisions shown decide, and a changed row is reported, not lost.
        queryset = modeladmin.get_queryset(request).filter(pk__in=selected)
    rows = list(queryset.select_related("paper", "resolution")[: BULK_LIMIT + 1])
    if len(rows) > BULK_LIMIT:
        messages.error(
            request,
            f"Select at most {BULK_LIMIT} observations per bulk action (narrow the filters).",
        )
        return None
    form = BulkForm(request.POST if "apply" in request.POST else None, initial={"threshold": 90.0})
    if form.is_bound and form.is_valid():
        actor, reason = (
            Actor.for_user(request.user, ChangeSource.ADMIN),
            form.cleaned_data["reason"],
        )
        try:
            outcome = observations_bulk_decide(
                action=action.name,
                observations=rows,
                seen=_seen(request),
                actor=actor,
                reason=reason,
                threshold=form.cleaned_data.get("threshold") or 0.0,
            )
        except CurationError as exc:
            messages.error(request, str(exc))
            return None
        messages.success(request, outcome.message(action.verb))
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": action.title,
        "action": action,
        "rows": [_shown(o) for o in rows[:50]],
        "more": max(len(rows) - 50, 0),
        "total": len(rows),
        "ids": [str(o.pk) for o in rows],
        "form": form,
        "opts": modeladmin.model._meta,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        **_confirm_context(action, rows),
    }
    return TemplateResponse(request, "curation/admin/bulk_confirm.html", context)


def make_action(action: BulkAction) -> Callable[..., Any]:
    """Return a Django admin action function for a bulk action."""

    def admin_action(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Observation]) -> Any:
        return run_bulk(action, modeladmin, request, queryset)

    admin_action.__name__ = action.name
    admin_action.short_description = action.title  # type: ignore[attr-defined]
    admin_action.allowed_permissions = ("change",)  # type: ignore[attr-defined]
    return admin_action
