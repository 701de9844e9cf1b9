"""Working a queue without leaving it: the next reference of the same queue, filters and search,
and the reasons a curator gave, remembered for the session so a repeated decision needs none."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.db.models import QuerySet
from django.http import HttpRequest, QueryDict
from django.urls import reverse

from curation.models import Observation
from curation.selectors import all_observations

# The queue is walked in the changelist's default order; a column sort chosen in the list
# (`o`) and the page number (`p`) do not change which reference comes next.
_NOT_FILTERS = ("o", "p", "_changelist_filters")
_REASONS = "curation_reasons"
_REASONS_KEPT = 40


class QueueWalk:
    """The queue a reference page was opened from: its filters and search, kept in the URL.

    The changelist adds `_changelist_filters` to every link it draws (Django's preserved
    filters); every page opened from it, and every page "next" leads to, keeps it.
    """

    def __init__(self, model_admin: Any, request: HttpRequest, filters: str) -> None:
        self.model_admin = model_admin
        self.filters = filters
        params = QueryDict(filters, mutable=True)
        for key in _NOT_FILTERS:
            params.pop(key, None)
        self.params = params

    @property
    def list_url(self) -> str:
        """Return the queue's URL, filters and search included."""
        url = reverse("admin:curation_observation_changelist")
        return f"{url}?{self.filters}" if self.filters else url

    def keep(self, url: str) -> str:
        """Return the URL with this queue's filters attached."""
        return f"{url}?{urlencode({'_changelist_filters': self.filters})}" if self.filters else url

    def page_url(self, obj: Observation) -> str:
        """Return the observation page's URL inside this queue."""
        return self.keep(reverse("admin:curation_observation_change", args=[obj.pk]))

    def skip_url(self, obj: Observation) -> str:
        """Return the URL that opens the reference after this one (writes nothing)."""
        return self.keep(reverse("admin:curation_observation_next", args=[obj.pk]))

    def queryset(self, request: HttpRequest) -> QuerySet[Observation]:
        """Return the queue as the changelist lists it: its list filters, then its search."""
        admin = self.model_admin
        queryset = all_observations()
        lists = dict(self.params.lists())
        for spec in admin.list_filter:
            queryset = spec(request, lists, Observation, admin).queryset(request, queryset)
        term = self.params.get("q", "").strip()
        if term:
            queryset, _ = admin.get_search_results(request, queryset, term)
        return queryset

    def following(self, obj: Observation, request: HttpRequest) -> tuple[Observation | None, bool]:
        """Return the next reference after `obj` in queue order, and whether it wrapped around.

        A row comparison on (paper, reference number, id): one index range scan, however deep
        in the queue. Past the end the walk starts again from the top (skipped references).
        """
        queryset = (
            self.queryset(request).exclude(pk=obj.pk).order_by("paper_id", "reference_index", "id")
        )
        after = queryset.extra(
            where=[
                '("curation_observation"."paper_id", "curation_observation"."reference_index", '
                '"curation_observation"."id") > (%s, %s, %s)'
            ],
            params=[obj.paper_id, obj.reference_index, obj.pk],
        ).first()
        if after is not None:
            return after, False
        return queryset.first(), True

    def after(self, obj: Observation, request: HttpRequest) -> str:
        """Return where "next" leads: the following reference, or the queue when it is empty."""
        following, wrapped = self.following(obj, request)
        if following is None:
            messages.info(request, "Nothing left in this queue.")
            return self.list_url
        if wrapped:
            messages.info(request, "End of the queue: back to the first reference left.")
        return self.page_url(following)


def reason_key(posted: QueryDict) -> str:
    """Return what a reason is remembered under: the decision, the state it sets, and for an
    accepted candidate whether it was the top one (decide.js offers the same keys)."""
    action = str(posted.get("do") or posted.get("action") or "")
    candidate = posted.get("candidate")
    if candidate:
        return (
            "accept_candidate"
            if candidate == posted.get("top_candidate")
            else "accept_candidate:other"
        )
    return f"{action}:{posted.get('status')}" if action == "set_state" else action


def remember_reason(request: HttpRequest, data: QueryDict, reason: str) -> None:
    """Keep the reason of a saved decision for the next decision of the same kind."""
    kept = dict(request.session.get(_REASONS, {}))
    kept.pop(reason_key(data), None)
    kept[reason_key(data)] = reason
    request.session[_REASONS] = dict(list(kept.items())[-_REASONS_KEPT:])


def remembered_reasons(request: HttpRequest) -> dict[str, str]:
    """Return the reasons this session last gave, by decision kind."""
    return dict(request.session.get(_REASONS, {}))
