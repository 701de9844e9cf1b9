"""Bulk actions on the work queue: a confirmation page with a reason, then the services,
one history context for the whole action. Observations changed by someone else since the
confirmation page was shown are skipped and reported, never overwritten."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pghistory
from django.contrib import messages
from django.contrib.admin import helpers
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from curation.audit import Actor, audited
from curation.models import Observation
from curation.services.observations import (
    CurationError,
    observation_mark_no_canonical_record,
    observation_retire,
    observation_set_state,
    observations_apply_same_text,
    observations_merge,
    same_text_observations,
)
from curation.states import ResolutionStatus

from .candidates import top_candidate
from .common import can_curate, curator_actor
from .decisions import link
from .forms import BulkForm, parse_identifier

BULK_LIMIT = 2000
RESOLVE_CHUNK = 250


@dataclass
class BulkOutcome:
    """What a bulk action did, for the curator's message."""

    done: int = 0
    skipped: list[str] = field(default_factory=list)

    def message(self, verb: str) -> str:
        """Return the one-line summary."""
        text = f"{verb}: {self.done} observation{'s' if self.done != 1 else ''}."
        if self.skipped:
            text += f" Skipped {len(self.skipped)}: " + "; ".join(self.skipped[:5])
            text += " …" if len(self.skipped) > 5 else ""
        return text


PerObservation = Callable[[Observation, int | None, Actor, str, dict[str, Any]], None]


def _accept_top(
    o: Observation, rev: int | None, actor: Actor, reason: str, data: dict[str, Any]
) -> None:
    resolution = getattr(o, "resolution", None)
    best = top_candidate(resolution.evidence if resolution else None)
    threshold = data.get("threshold") or 0.0
    if best is None or best.score is None or best.score < threshold:
        raise CurationError(
            f"{o.paper.arxiv_id} ref {o.reference_index}: no candidate above {threshold:g}"
        )
    link(o, parse_identifier(best.identifier), rev, actor, reason)


def _parse_uncertain(
    o: Observation, rev: int | None, actor: Actor, reason: str, data: dict[str, Any]
) -> None:
    observation_set_state(
        observation=o,
        status=ResolutionStatus.PARSE_UNCERTAIN,
        expected_revision=rev,
        actor=actor,
        reason=reason,
    )


def _no_record(
    o: Observation, rev: int | None, actor: Actor, reason: str, data: dict[str, Any]
) -> None:
    observation_mark_no_canonical_record(
        observation=o, expected_revision=rev, actor=actor, reason=reason
    )


def _retire(
    o: Observation, rev: int | None, actor: Actor, reason: str, data: dict[str, Any]
) -> None:
    observation_retire(observation=o, expected_revision=rev, actor=actor, reason=reason)


@dataclass(frozen=True)
class BulkAction:
    """A bulk action: its title, what the confirmation asks, and how it applies."""

    name: str
    title: str
    verb: str
    per_observation: PerObservation | None = None
    asks_threshold: bool = False


def _seen(request: HttpRequest) -> dict[str, int]:
    """Return the revisions the curator saw on the confirmation page, by observation id."""
    seen = {}
    for pair in request.POST.getlist("seen"):
        pk, _, rev = pair.partition(":")
        if rev.isdigit():
            seen[pk] = int(rev)
    return seen


def _each(
    action: BulkAction,
    rows: list[Observation],
    seen: dict[str, int],
    actor: Actor,
    reason: str,
    data: dict[str, Any],
) -> BulkOutcome:
    outcome = BulkOutcome()
    assert action.per_observation is not None
    for o in rows:
        try:
            action.per_observation(o, seen.get(str(o.pk)), actor, reason, data)
        except CurationError as exc:
            outcome.skipped.append(str(exc))
            continue
        outcome.done += 1
    return outcome


def _rerun(rows: list[Observation], actor: Actor, reason: str) -> BulkOutcome:
    from curation.resolution.services import observations_resolve

    outcome = BulkOutcome()
    for start in range(0, len(rows), RESOLVE_CHUNK):
        result = observations_resolve(
            observations=rows[start : start + RESOLVE_CHUNK], actor=actor, reason=reason
        )
        outcome.done += result.changed + result.unchanged + result.pinned
        outcome.skipped += (
            [f"{result.pinned} pinned: disagreements kept for curators"] if result.pinned else []
        )
        outcome.skipped += list(result.errors or [])
    return outcome


def _merge(rows: list[Observation], actor: Actor, reason: str) -> BulkOutcome:
    keep, *duplicates = sorted(rows, key=lambda o: (o.reference_index, str(o.pk)))
    if not duplicates:
        raise CurationError("select at least two observations of one paper to merge")
    count = observations_merge(keep=keep, duplicates=duplicates, actor=actor, reason=reason)
    return BulkOutcome(done=count)


def _same_text(rows: list[Observation], actor: Actor, reason: str) -> BulkOutcome:
    if len(rows) != 1:
        raise CurationError("select exactly one observation whose decision is to be copied")
    return BulkOutcome(
        done=observations_apply_same_text(observation=rows[0], actor=actor, reason=reason)
    )


WHOLE: dict[str, Callable[[list[Observation], Actor, str], BulkOutcome]] = {
    "rerun_resolver": _rerun,
    "merge_duplicates": _merge,
    "apply_same_text": _same_text,
}

ACTIONS = [
    BulkAction(
        "accept_top_candidate",
        "Accept the top candidate when its score is above a threshold",
        "Accepted the top candidate",
        _accept_top,
        asks_threshold=True,
    ),
    BulkAction(
        "mark_parse_uncertain",
        "Mark as parse_uncertain",
        "Marked parse_uncertain",
        _parse_uncertain,
    ),
    BulkAction(
        "mark_no_canonical_record",
        "Mark as having no canonical record",
        "Marked no canonical record",
        _no_record,
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
    BulkAction(
        "retire_junk", "Delete junk (retire: kept in history, revertible)", "Retired", _retire
    ),
]


def _confirm_context(action: BulkAction, rows: list[Observation]) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if action.name == "apply_same_text" and len(rows) == 1:
        extra["same_text_count"] = same_text_observations(rows[0]).count()
    if action.name == "merge_duplicates" and rows:
        extra["keep"] = sorted(rows, key=lambda o: (o.reference_index, str(o.pk)))[0]
        extra["papers"] = len({o.paper_id for o in rows})
    return extra


def run_bulk(
    action: BulkAction, modeladmin: Any, request: HttpRequest, queryset: QuerySet[Observation]
) -> Any:
    """Show the confirmation page, or apply the action once confirmed with a reason."""
    if not can_curate(request):
        messages.error(request, "You may look at references but not change them.")
        return None
    rows = list(queryset.select_related("paper", "resolution")[: BULK_LIMIT + 1])
    if len(rows) > BULK_LIMIT:
        messages.error(
            request,
            f"Select at most {BULK_LIMIT} observations per bulk action (narrow the filters).",
        )
        return None
    form = BulkForm(request.POST if "apply" in request.POST else None, initial={"threshold": 90.0})
    if form.is_bound and form.is_valid():
        actor, reason = curator_actor(request), form.cleaned_data["reason"]
        try:
            with (
                transaction.atomic(),
                audited(actor, reason),
                pghistory.context(bulk_action=action.name),
            ):
                if action.per_observation is not None:
                    outcome = _each(action, rows, _seen(request), actor, reason, form.cleaned_data)
                else:
                    outcome = WHOLE[action.name](rows, actor, reason)
        except CurationError as exc:
            messages.error(request, str(exc))
            return None
        messages.success(request, outcome.message(action.verb))
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": action.title,
        "action": action,
        "rows": rows[:50],
        "more": max(len(rows) - 50, 0),
        "total": len(rows),
        "seen": [f"{o.pk}:{o.revision}" for o in rows],
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
