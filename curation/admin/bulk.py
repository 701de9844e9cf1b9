"""Bulk actions on the work queue: a confirmation page with a reason, then the services,
one history context for the whole action. Every write carries the revisions the confirmation
page showed (hidden "seen" fields): observations changed by someone else since, retired since or
not shown at all are skipped and reported with who, when and why, never overwritten."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pghistory
from django.contrib import messages
from django.contrib.admin import helpers
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from curation.audit import Actor, audited
from curation.models import Observation
from curation.resolution.candidates import agreement, top_candidate
from curation.services.observation_groups import (
    GroupOutcome,
    label,
    lock_in_order,
    observations_apply_same_text,
    observations_merge,
    refusal,
    same_text_observations,
)
from curation.services.observations import (
    CurationError,
    describe_change,
    last_change,
    observation_mark_no_canonical_record,
    observation_retire,
    observation_set_state,
)
from curation.states import ChangeSource, ResolutionStatus

from .common import can_curate
from .decisions import link
from .describe import best_text
from .forms import BulkForm, parse_identifier, parse_seen, seen_pairs

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


PerObservation = Callable[[Observation, int, Actor, str, dict[str, Any]], None]


def _accept_top(o: Observation, rev: int, actor: Actor, reason: str, data: dict[str, Any]) -> None:
    threshold = data.get("threshold") or 0.0
    if o.pinned:
        # A curator's decision replaced the resolver's candidates: say so, not "no candidate".
        raise CurationError(
            f"{label(o)}: pinned by a curator ({describe_change(last_change(o.pk))}); "
            "a bulk rule does not override a curator: decide on its page"
        )
    resolution = getattr(o, "resolution", None)
    best = top_candidate(resolution.evidence if resolution else None)
    if best is None:
        raise CurationError(f"{label(o)}: no candidates in its evidence")
    if best.score is None or best.score < threshold:
        scored = "no score" if best.score is None else f"scores {best.score:g}"
        raise CurationError(f"{label(o)}: top candidate {scored}, below {threshold:g}")
    link(o, parse_identifier(best.identifier), rev, actor, reason)


def _parse_uncertain(
    o: Observation, rev: int, actor: Actor, reason: str, data: dict[str, Any]
) -> None:
    observation_set_state(
        observation=o,
        status=ResolutionStatus.PARSE_UNCERTAIN,
        expected_revision=rev,
        actor=actor,
        reason=reason,
    )


def _no_record(o: Observation, rev: int, actor: Actor, reason: str, data: dict[str, Any]) -> None:
    observation_mark_no_canonical_record(
        observation=o, expected_revision=rev, actor=actor, reason=reason
    )


def _retire(o: Observation, rev: int, actor: Actor, reason: str, data: dict[str, Any]) -> None:
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
    return parse_seen(request.POST.getlist("seen"))


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
        revision = seen.get(str(o.pk))
        if revision is None:
            outcome.skipped.append(f"{label(o)}: not shown on the confirmation page")
            continue
        try:
            action.per_observation(o, revision, actor, reason, data)
        except CurationError as exc:
            outcome.skipped.append(str(exc))
            continue
        outcome.done += 1
    return outcome


def _rerun(rows: list[Observation], seen: dict[str, int], actor: Actor, reason: str) -> BulkOutcome:
    from curation.resolution.services import observations_resolve

    outcome = BulkOutcome()
    # Held until the action commits: nobody changes a row between this check and the resolver.
    locked = lock_in_order(Q(pk__in=[o.pk for o in rows]))
    current = []
    for o in locked:
        why = refusal(o, seen.get(str(o.pk)))
        if why:
            outcome.skipped.append(why)
        else:
            current.append(o)
    for start in range(0, len(current), RESOLVE_CHUNK):
        result = observations_resolve(
            observations=current[start : start + RESOLVE_CHUNK], actor=actor, reason=reason
        )
        outcome.done += result.changed + result.unchanged + result.pinned
        outcome.skipped += (
            [f"{result.pinned} pinned: disagreements kept for curators"] if result.pinned else []
        )
        outcome.skipped += list(result.errors or [])
    return outcome


def _keeper(rows: list[Observation]) -> Observation:
    return sorted(rows, key=lambda o: (o.reference_index, str(o.pk)))[0]


def _from_group(outcome: GroupOutcome) -> BulkOutcome:
    return BulkOutcome(done=outcome.done, skipped=outcome.skipped)


def _merge(rows: list[Observation], seen: dict[str, int], actor: Actor, reason: str) -> BulkOutcome:
    if len(rows) < 2:
        raise CurationError("select at least two observations of one paper to merge")
    keep = _keeper(rows)
    duplicates = [o for o in rows if o.pk != keep.pk]
    return _from_group(
        observations_merge(
            keep=keep, duplicates=duplicates, revisions=seen, actor=actor, reason=reason
        )
    )


def _same_text(
    rows: list[Observation], seen: dict[str, int], actor: Actor, reason: str
) -> BulkOutcome:
    if len(rows) != 1:
        raise CurationError("select exactly one observation whose decision is to be copied")
    source = rows[0]
    revision = seen.get(str(source.pk))
    if revision is None:
        raise CurationError(f"{label(source)} was not shown on the confirmation page: reload")
    return _from_group(
        observations_apply_same_text(
            observation=source,
            expected_revision=revision,
            target_revisions=seen,
            actor=actor,
            reason=reason,
        )
    )


WHOLE: dict[str, Callable[[list[Observation], dict[str, int], Actor, str], BulkOutcome]] = {
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
        extra["keep"] = _keeper(rows)
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
        actor, reason = Actor.for_user(request.user, ChangeSource.ADMIN), form.cleaned_data["reason"]
        try:
            with (
                transaction.atomic(),
                audited(actor, reason),
                pghistory.context(bulk_action=action.name),
            ):
                if action.per_observation is not None:
                    outcome = _each(action, rows, _seen(request), actor, reason, form.cleaned_data)
                else:
                    outcome = WHOLE[action.name](rows, _seen(request), actor, reason)
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
