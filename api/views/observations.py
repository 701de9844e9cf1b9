"""Observations: filtered lists with cursor paging and sync tombstones; one with its evidence."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from curation import models as curation_models
from curation.models import Observation
from curation.selectors import deleted_observation_events, observations_with_parts, paper_pk

from ..caching import NOT_MODIFIED
from ..filters import ObservationFilter
from ..page_cache import Marker, RecordMarker
from ..schema import ERRORS
from ..serializers.observations import (
    DeletedObservationSerializer,
    ObservationSerializer,
    deleted_observation_json,
    observation_json,
)
from .base import CachedListView, DetailView

# pghistory creates the event model at import time, out of the type checker's sight.
ObservationEvent: Any = curation_models.ObservationEvent  # type: ignore[attr-defined]

# Each ordering is a unique key, so the keyset cursor never skips or repeats a row.
ORDERINGS = {
    "reference": ("paper_id", "reference_index", "id"),
    "changed": ("changed_at", "id"),
}
SINCE = "changed_since"


# A list filtered by one of these shows only observations of that paper's record (outbound or
# inbound): its record version says whether a cached page is current (api/page_cache.py).
RECORD_FILTERS = ("paper", "cited_paper")


class ObservationList(CachedListView):
    """List observations: by reference order, or by change time for sync."""

    serializer_class = ObservationSerializer
    filterset_class = ObservationFilter
    extra_params = frozenset({"ordering"})

    @property
    def cursor_ordering(self) -> tuple[str, ...]:
        """Return the keyset of the requested ordering (change order when syncing)."""
        params = self.request.query_params
        name = params.get("ordering") or ("changed" if SINCE in params else "reference")
        if name not in ORDERINGS:
            raise ValidationError({"ordering": f"one of {sorted(ORDERINGS)}"})
        return ORDERINGS[name]

    def get_queryset(self) -> QuerySet[Observation]:
        """Return live observations; with changed_since, retired ones too (tombstones)."""
        queryset = observations_with_parts()
        if SINCE not in self.request.query_params:
            queryset = queryset.filter(retired_at__isnull=True)
        return self._of_paper(queryset)

    def _of_paper(self, queryset: QuerySet[Observation]) -> QuerySet[Observation]:
        """Filter on the paper's key too when a paper is asked for (the filter joins its id).

        With the key as a constant PostgreSQL walks that paper's references in order and stops
        at the page; through the join it estimated an average paper (41 rows), so it read, joined
        and sorted all 1,500 of a large one for every page (60 ms of 100 at 100,000 rows).
        """
        arxiv_id = (self.request.query_params.get("paper") or "").strip()
        if not arxiv_id:
            return queryset
        pk = paper_pk(arxiv_id)
        return queryset.none() if pk is None else queryset.filter(paper_id=pk)

    def page_marker(self, page: QuerySet[Observation]) -> Marker | None:
        """Return the record version of the paper filtered on, else the rows' digest."""
        for name in RECORD_FILTERS:
            # Stripped as the filter's form field strips it, so both name the same paper.
            arxiv_id = (self.request.query_params.get(name) or "").strip()
            if arxiv_id:
                return RecordMarker(arxiv_id)
        return super().page_marker(page)

    def rows_json(self, rows: list[Observation]) -> list[Any]:
        """Return the rows as ObservationSerializer describes them."""
        return [observation_json(row) for row in rows]

    @extend_schema(
        summary="Observations (references) with their evidence",
        parameters=[
            OpenApiParameter(
                "ordering",
                OpenApiTypes.STR,
                enum=sorted(ORDERINGS),
                description="reference (default) or changed (default with changed_since).",
            )
        ],
        responses={200: ObservationSerializer(many=True), **NOT_MODIFIED, **ERRORS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer a page of observations."""
        return super().get(request, *args, **kwargs)


class DeletedFilter(filters.FilterSet):
    """Deleted observations since a time."""

    changed_since = filters.IsoDateTimeFilter(field_name="pgh_created_at", lookup_expr="gte")

    class Meta:
        model = ObservationEvent
        fields: list[str] = []


class DeletedObservationList(CachedListView):
    """List tombstones of deleted observations, from their history delete events."""

    serializer_class = DeletedObservationSerializer
    filterset_class = DeletedFilter
    cursor_ordering = ("pgh_created_at", "pgh_id")

    def rows_json(self, rows: list[Any]) -> list[Any]:
        """Return the tombstones as DeletedObservationSerializer describes them."""
        return [deleted_observation_json(row) for row in rows]

    def get_queryset(self) -> QuerySet[Any]:
        """Return delete events with the citing paper's arXiv id."""
        return deleted_observation_events()

    @extend_schema(
        summary="Tombstones of deleted observations",
        responses={200: DeletedObservationSerializer(many=True), **NOT_MODIFIED, **ERRORS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer a page of tombstones."""
        return super().get(request, *args, **kwargs)


class ObservationDetail(DetailView):
    """One observation, retired or live, with its evidence."""

    serializer_class = ObservationSerializer

    def get_queryset(self) -> QuerySet[Observation]:
        """Return every observation (a retired one is still addressable)."""
        return observations_with_parts()

    @extend_schema(
        summary="An observation with its evidence",
        responses={200: ObservationSerializer, 304: None, **ERRORS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer the observation, or 304."""
        return super().get(request, *args, **kwargs)
