"""Papers: list with title search, category and date filters; detail."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from curation.models import Paper
from curation.selectors import all_papers

from ..caching import NOT_MODIFIED
from ..filters import PaperFilter
from ..schema import ERRORS
from ..serializers.papers import PaperSerializer, paper_json
from .base import CachedListView, DetailView


class PaperList(CachedListView):
    """List papers by arXiv id."""

    serializer_class = PaperSerializer
    filterset_class = PaperFilter
    cursor_ordering = ("arxiv_id",)

    def get_queryset(self) -> QuerySet[Paper]:
        """Return all papers."""
        return all_papers()

    def rows_json(self, rows: list[Paper]) -> list[Any]:
        """Return the rows as PaperSerializer describes them."""
        return [paper_json(row) for row in rows]

    @extend_schema(
        summary="Papers",
        responses={200: PaperSerializer(many=True), **NOT_MODIFIED, **ERRORS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer a page of papers."""
        return super().get(request, *args, **kwargs)


class PaperDetail(DetailView):
    """One paper by arXiv id (old-style ids keep their slash)."""

    serializer_class = PaperSerializer
    lookup_field = "arxiv_id"

    def get_queryset(self) -> QuerySet[Paper]:
        """Return all papers."""
        return all_papers()

    @extend_schema(summary="A paper", responses={200: PaperSerializer, 304: None, **ERRORS})
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer the paper, or 304."""
        return super().get(request, *args, **kwargs)
