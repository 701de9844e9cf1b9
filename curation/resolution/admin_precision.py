"""Admin screens for the resolver measured by its curators (issue 41 item 3): the precision page
(per step and state, per band, overall; draw a sample there), and "Links to check", the queue of
sampled automatic links, walked one at a time: `y` confirms a link, `j` skips it, `o` opens the
reference to overturn it there (its decision checks the sampled link too)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from curation.audit import Actor
from curation.permissions import can_curate
from curation.resolution.models import LinkSampleItem
from curation.resolution.selectors import (
    link_sample_item,
    link_sample_item_after,
    link_sample_items_open,
    resolver_precision,
)
from curation.services.link_samples import (
    CONFIRM_REASON,
    MAX_PER_BAND,
    MAX_SEED_CHARS,
    link_sample_draw,
    sampled_link_confirm,
)
from curation.services.observations import CurationError, StaleRevision
from curation.states import ChangeSource

PRECISION_TITLE = "Resolver precision"
QUEUE_TITLE = "Links to check"


class DrawSampleForm(forms.Form):
    """How many links to draw per band, and the seed that makes the draw reproducible."""

    per_band = forms.IntegerField(
        label="Links per band", min_value=1, max_value=MAX_PER_BAND, initial=20,
        help_text="Each band of calibrated probability (and each step without one) gives this many.",
    )  # fmt: skip
    seed = forms.CharField(
        max_length=MAX_SEED_CHARS,
        help_text="The same seed over the same links draws the same links.",
    )
    reason = forms.CharField(max_length=2000, initial="measure the resolver's automatic links")


class ConfirmForm(forms.Form):
    """The revision of the reference the curator saw when confirming."""

    revision = forms.IntegerField(min_value=1)


@admin.register(LinkSampleItem)
class LinkSampleItemAdmin(admin.ModelAdmin):
    """Links to check: the sampled automatic links nobody has checked yet, in walk order."""

    list_display = ["check_link", "linked", "band", "probability", "step", "sample"]
    list_display_links = None  # the reference column opens the check page, not a change form
    list_filter = ["band"]
    list_select_related = ["observation", "observation__paper", "sample"]
    change_list_template = "curation/admin/links_to_check.html"

    def get_queryset(self, request: HttpRequest) -> Any:
        return link_sample_items_open()

    @admin.display(description="reference")
    def check_link(self, item: LinkSampleItem) -> str:
        """Open the check page of the sampled link."""
        observation = item.observation
        url = reverse("admin:resolution_linksampleitem_check", args=[item.pk])
        return format_html('<a href="{}">{} [{}]</a>', url, observation.paper.arxiv_id,
                           observation.reference_index)  # fmt: skip

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # drawn on the precision page

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # checked on its own page, through the services

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path("precision/", view(self.precision_view), name="resolution_precision"),
            path("<int:item_id>/check/", view(self.check_view),
                 name="resolution_linksampleitem_check"),
            *super().get_urls(),
        ]  # fmt: skip

    def _context(self, request: HttpRequest, title: str, **extra: Any) -> dict[str, Any]:
        return {**self.admin_site.each_context(request), "title": title,
                "opts": self.model._meta, "can_curate": can_curate(request), **extra}  # fmt: skip

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        first = link_sample_items_open().first()
        context = {**(extra_context or {}), "title": QUEUE_TITLE, "first_item": first,
                   "precision_url": reverse("admin:resolution_precision")}  # fmt: skip
        return super().changelist_view(request, extra_context=context)

    def precision_view(self, request: HttpRequest) -> HttpResponse:
        """Show the figures; a curator may draw a new sample of automatic links here."""
        if not self.has_view_permission(request):
            raise Http404("no access")
        initial = {"seed": timezone.now().strftime("%Y-%m-%d")}
        form = DrawSampleForm(request.POST or None, initial=initial)
        if request.method == "POST":
            if not can_curate(request):
                return HttpResponse("Drawing a sample is for curators.", status=403)
            if form.is_valid():
                try:
                    sample = link_sample_draw(
                        actor=Actor.for_user(request.user, ChangeSource.ADMIN), **form.cleaned_data
                    )
                except CurationError as exc:
                    form.add_error(None, str(exc))
                else:
                    drawn = sample.items.count()
                    messages.success(request, f"Drew {drawn} links to check (seed {sample.seed}).")
                    return HttpResponseRedirect(reverse("admin:resolution_linksampleitem_changelist"))
        figures = resolver_precision()
        return render(request, "curation/admin/resolver_precision.html",
                      self._context(request, PRECISION_TITLE, figures=figures, form=form))  # fmt: skip

    def check_view(self, request: HttpRequest, item_id: int) -> HttpResponse:
        """Show one sampled link; a POST confirms it and moves on to the next one."""
        item = link_sample_item(item_id)
        if item is None or not self.has_view_permission(request):
            raise Http404("no such sampled link")
        status = 200
        if request.method == "POST":
            if not can_curate(request):
                return HttpResponse("Checking links is for curators.", status=403)
            form = ConfirmForm(request.POST)
            if form.is_valid():
                try:
                    sampled_link_confirm(
                        item=item, expected_revision=form.cleaned_data["revision"],
                        actor=Actor.for_user(request.user, ChangeSource.ADMIN),
                    )  # fmt: skip
                except StaleRevision as exc:
                    messages.error(request, f"Not saved: {exc}")
                    status = 409
                except CurationError as exc:
                    messages.error(request, f"Not saved: {exc}")
                    status = 400
                else:
                    messages.success(request, f"Confirmed {item.linked}.")
                    return HttpResponseRedirect(self._next_url(item))
            else:
                messages.error(request, "Not saved: the form lacks the reference's revision.")
                status = 400
            item = link_sample_item(item_id) or item
        following = link_sample_item_after(item)
        context = self._context(
            request, f"Check a link: {item.observation.paper.arxiv_id} [{item.observation.reference_index}]",
            item=item, observation=item.observation,
            resolution=getattr(item.observation, "resolution", None),
            skip_url=self._check_url(following) if following else None,
            reference_url=reverse("admin:curation_observation_change", args=[item.observation_id]),
            queue_url=reverse("admin:resolution_linksampleitem_changelist"),
            confirm_reason=CONFIRM_REASON,
        )  # fmt: skip
        return render(request, "curation/admin/check_link.html", context, status=status)

    def _check_url(self, item: LinkSampleItem) -> str:
        return reverse("admin:resolution_linksampleitem_check", args=[item.pk])

    def _next_url(self, item: LinkSampleItem) -> str:
        following = link_sample_item_after(item)
        if following is None:
            return reverse("admin:resolution_linksampleitem_changelist")
        return self._check_url(following)
