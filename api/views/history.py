"""Change history of an object, from the pghistory event tables (authenticated users only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Model, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from pghistory.models import Events
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from curation.selectors import (
    cited_work_by_pk,
    history_events,
    observation_by_pk,
    paper_by_arxiv_id,
)

from ..caching import PRIVATE
from ..schema import AUTH_ERRORS, ERRORS
from ..serializers.history import HistoryEventSerializer
from .base import ListView

# kind in the URL -> (the object of a key, None for none or a malformed key; whether events of
# its parts count: an observation's resolution and notice share its history).
KINDS: dict[str, tuple[Callable[[str], Model | None], bool]] = {
    "papers": (paper_by_arxiv_id, False),
    "observations": (observation_by_pk, True),
    "cited-works": (cited_work_by_pk, False),
}


class HistoryList(ListView):
    """List the history events of one object, oldest first, with who, from where and why."""

    serializer_class = HistoryEventSerializer
    permission_classes = [IsAuthenticated]
    cursor_ordering = ("pgh_created_at", "pgh_slug")
    cache_control = PRIVATE

    def _object(self) -> Model:
        kind, key = self.kwargs["kind"], self.kwargs["key"]
        if kind not in KINDS:
            raise NotFound(f"history is kept for {sorted(KINDS)}")
        find, _ = KINDS[kind]
        obj = find(key)
        if obj is None:
            raise NotFound(f"no {kind} {key}")
        return obj

    def get_queryset(self) -> QuerySet[Any]:
        """Return the events of the object (and of its parts, for an observation)."""
        if getattr(self, "swagger_fake_view", False):  # schema generation: no object
            return Events.no_objects.none()
        obj = self._object()
        return history_events(obj, with_parts=KINDS[self.kwargs["kind"]][1])

    @extend_schema(
        summary="Change history of a paper, observation or cited work",
        parameters=[
            OpenApiParameter("kind", OpenApiTypes.STR, OpenApiParameter.PATH, enum=sorted(KINDS)),
        ],
        responses={200: HistoryEventSerializer(many=True), **AUTH_ERRORS, **ERRORS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer a page of history events."""
        return super().get(request, *args, **kwargs)
