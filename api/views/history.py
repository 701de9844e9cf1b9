"""Change history of an object, from the pghistory event tables (authenticated users only)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db.models import Model, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from pghistory.models import Events
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from curation.models import CitedWork, Observation, Paper

from ..caching import PRIVATE
from ..schema import AUTH_ERRORS, ERRORS
from ..serializers import HistoryEventSerializer
from .base import ListView

# kind in the URL -> (model, lookup field, whether events of its parts count: an observation's
# resolution and notice share its history).
KINDS: dict[str, tuple[type[Model], str, bool]] = {
    "papers": (Paper, "arxiv_id", False),
    "observations": (Observation, "pk", True),
    "cited-works": (CitedWork, "pk", False),
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
        model, field, _ = KINDS[kind]
        try:
            return model._default_manager.get(**{field: key})
        except (ObjectDoesNotExist, ValueError, ValidationError) as exc:  # malformed keys too
            raise NotFound(f"no {kind} {key}") from exc

    def get_queryset(self) -> QuerySet[Any]:
        """Return the events of the object (and of its parts, for an observation)."""
        if getattr(self, "swagger_fake_view", False):  # schema generation: no object
            return Events.no_objects.none()
        obj = self._object()
        with_parts = KINDS[self.kwargs["kind"]][2]
        events = Events.objects.references(obj) if with_parts else Events.objects.tracks(obj)
        return events  # type: ignore[no-any-return]

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
