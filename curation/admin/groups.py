"""The group queue (issue 41): references citing the same work across papers, decided once.

The queue lists groups by what one decision settles (undecided citations, then works with
notices), with each queue's size, decisions per hour and when it will be empty at that rate.
A group's page shows its spellings and first members, and takes one decision for all of them
(curation.services.reference_groups.group_decide) or undoes the group's decision. Kept apart
from the observation screens (observations.py) so each screen stays one module.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from curation.audit import Actor
from curation.models import ReferenceGroup
from curation.permissions import can_curate
from curation.selectors import (
    decided_groups,
    group_by_pk,
    group_members,
    group_proposals,
    group_queue,
    group_spellings,
    queue_rates,
)
from curation.services.observations import CurationError
from curation.services.reference_groups import GroupResult, StaleGroup, group_decide, group_undo
from curation.states import ChangeSource

from .forms import STATE_CHOICES
from .screens import GROUP_QUEUE

PER_PAGE = 50
MEMBERS_SHOWN = 50
SPELLINGS_SHOWN = 10
DECIDED_SHOWN = 10
GROUP_DECISIONS = [
    ("link", "Link every member to an arXiv id or DOI"),
    ("no_canonical_record", "No canonical record (software, web page, book)"),
    ("set_state", "Set a state"),
]


class GroupDecisionForm(forms.Form):
    """One decision for every member of a group, on the group's revision the curator saw."""

    revision = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    decision = forms.ChoiceField(choices=GROUP_DECISIONS, widget=forms.RadioSelect)
    identifier = forms.CharField(
        required=False, max_length=255, label="arXiv id or DOI (for a link)"
    )
    status = forms.ChoiceField(choices=STATE_CHOICES, required=False, label="State (to set one)")
    reason = forms.CharField(max_length=500, strip=True, label="Why (kept in every history)")

    def clean(self) -> dict[str, Any] | None:
        data = super().clean() or {}
        if data.get("decision") == "link" and not data.get("identifier"):
            self.add_error("identifier", "A link needs an arXiv id or a DOI.")
        if data.get("decision") == "set_state" and not data.get("status"):
            self.add_error("status", "Choose the state to set.")
        return data

    def value(self) -> str:
        """Return what the chosen decision takes: the identifier, the state, or nothing."""
        decision = self.cleaned_data["decision"]
        if decision == "link":
            return str(self.cleaned_data["identifier"])
        return str(self.cleaned_data["status"]) if decision == "set_state" else ""


def undo_form(request: HttpRequest, group: ReferenceGroup) -> SafeString:
    """Return the one-click Undo of a group's decision (posted on the group's revision)."""
    from django.middleware.csrf import get_token

    return format_html(
        '<form method="post" action="{}" class="cr-undo">'
        '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'
        '<input type="hidden" name="action" value="undo">'
        '<input type="hidden" name="revision" value="{}">'
        '<button type="submit" id="cr-group-undo-{}">Undo the group decision</button></form>',
        reverse("admin:curation_referencegroup_change", args=[group.pk]),
        get_token(request),
        group.revision,
        group.pk,
    )


def _going_on(outcome: GroupResult) -> str:
    return (
        "; the others follow in the background, a few hundred at a time" if outcome.queued else ""
    )


def _skipped(skipped: list[str]) -> SafeString:
    if not skipped:
        return SafeString("")
    return format_html(
        " Left alone: <ul>{}</ul>", format_html_join("", "<li>{}</li>", ((s,) for s in skipped))
    )


@admin.register(ReferenceGroup)
class ReferenceGroupAdmin(admin.ModelAdmin):
    """The group queue and one group's page."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_curate(request)

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        """List the groups to decide by impact, the queues' rates, and the latest decisions."""
        if not self.has_view_or_change_permission(request):
            raise Http404("no such screen")
        try:
            page = max(int(request.GET.get("p", "1")), 1)
        except ValueError:
            page = 1
        start = (page - 1) * PER_PAGE
        # One more than a page: whether there is a next page, without counting the queue.
        rows = list(group_queue()[start : start + PER_PAGE + 1])
        context = {
            **self.admin_site.each_context(request),
            "title": GROUP_QUEUE,
            "opts": self.model._meta,
            "groups": rows[:PER_PAGE],
            "first_rank": start + 1,
            "page": page,
            "next_page": page + 1 if len(rows) > PER_PAGE else None,
            "rates": queue_rates(),
            "decided": [
                (g, undo_form(request, g) if can_curate(request) else "")
                for g in decided_groups()[:DECIDED_SHOWN]
            ],
        }
        return TemplateResponse(request, "curation/admin/group_queue.html", context)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        """Show one group; decide it, or undo its decision."""
        group = group_by_pk(object_id)
        if group is None or not self.has_view_or_change_permission(request, group):
            raise Http404("unknown group")
        if request.method == "POST":
            if not can_curate(request):
                raise Http404("read-only")
            if request.POST.get("action") == "undo":
                return self._undo(request, group)
            return self._decide(request, group)
        return self._render(request, group, GroupDecisionForm(initial=_initial(group)), 200)

    def _render(
        self, request: HttpRequest, group: ReferenceGroup, form: GroupDecisionForm, status: int
    ) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "title": f"Group of {group.size} references",
            "opts": self.model._meta,
            "group": group,
            "form": form,
            "members": group_members(group, limit=MEMBERS_SHOWN),
            "spellings": group_spellings(group, limit=SPELLINGS_SHOWN),
            "proposals": group_proposals(group),
            "can_change": can_curate(request),
            "undo": undo_form(request, group) if group.decision_id and can_curate(request) else "",
        }
        return TemplateResponse(request, "curation/admin/group_page.html", context, status=status)

    def _decide(self, request: HttpRequest, group: ReferenceGroup) -> HttpResponse:
        form = GroupDecisionForm(request.POST)
        if not form.is_valid():
            return self._render(request, group, form, 400)
        try:
            outcome = group_decide(
                group_id=group.pk,
                action=form.cleaned_data["decision"],
                value=form.value(),
                expected_revision=form.cleaned_data["revision"],
                actor=Actor.for_user(request.user, ChangeSource.ADMIN),
                reason=form.cleaned_data["reason"],
            )
        except StaleGroup as exc:
            form.add_error(None, str(exc))
            fresh = group_by_pk(group.pk) or group
            return self._render(request, fresh, form, 409)
        except CurationError as exc:
            form.add_error(None, str(exc))
            return self._render(request, group, form, 400)
        decided = group_by_pk(group.pk) or group
        messages.success(
            request,
            format_html(
                "Decided {} references of the group at once{}.{} {}",
                outcome.done,
                _going_on(outcome),
                _skipped(outcome.skipped),
                undo_form(request, decided),
            ),
        )
        return HttpResponseRedirect(reverse("admin:curation_referencegroup_changelist"))

    def _undo(self, request: HttpRequest, group: ReferenceGroup) -> HttpResponse:
        try:
            revision = int(request.POST.get("revision", ""))
        except ValueError:
            revision = 0
        try:
            outcome = group_undo(
                group_id=group.pk,
                expected_revision=revision,
                actor=Actor.for_user(request.user, ChangeSource.ADMIN),
            )
        except CurationError as exc:
            messages.error(request, str(exc))
            fresh = group_by_pk(group.pk) or group
            form = GroupDecisionForm(initial=_initial(fresh))
            return self._render(request, fresh, form, 409 if isinstance(exc, StaleGroup) else 400)
        messages.success(
            request,
            format_html(
                "Undid the group decision on {} references.{}",
                outcome.done,
                _skipped(outcome.skipped),
            ),
        )
        return HttpResponseRedirect(
            reverse("admin:curation_referencegroup_change", args=[group.pk])
        )


def _initial(group: ReferenceGroup) -> dict[str, Any]:
    return {"revision": group.revision}
