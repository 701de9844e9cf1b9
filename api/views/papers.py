"""Papers: list with title search, category and date filters; detail."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from curation.models import Paper

from ..filters import PaperFilter
from ..schema import ERRORS
from ..serializers import PaperSerializer
from .base import DetailView, ListView


class PaperList(ListView):
    """List papers by arXiv id."""

    serializer_class = PaperSerializer
    filterset_class = PaperFilter
    cursor_ordering = ("arxiv_id",)
    queryset = Paper.objects.all()

    @extend_schema(summary="Papers", responses={200: PaperSerializer(many=True), **ERRORS})
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer a page of papers."""
        return super().get(request, *args, **kwargs)


class PaperDetail(DetailView):
    """One paper by arXiv id (old-style ids keep their slash)."""

    serializer_class = PaperSerializer
    lookup_field = "arxiv_id"

    def get_queryset(self) -> QuerySet[Paper]:
        """Return all papers."""
        return Paper.objects.all()

    @extend_schema(summary="A paper", responses={200: PaperSerializer, 304: None, **ERRORS})
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer the paper, or 304."""
        return super().get(request, *args, **kwargs)
