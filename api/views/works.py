"""Cited works: lookup by DOI or arXiv id, with the papers that cite them."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from curation.models import CitedWork
from curation.selectors import cited_works_with_counts, citing_arxiv_ids

from ..caching import NOT_MODIFIED, conditional_response
from ..filters import CitedWorkFilter
from ..schema import ERRORS
from ..serializers.works import CitedWorkDetailSerializer, CitedWorkSerializer, cited_work_json
from .base import CachedListView, DetailView

CITING_PAPERS_SHOWN = 100  # the rest through /observations?cited_work=<id>


class CitedWorkList(CachedListView):
    """List cited works; look one up by ?doi= or ?arxiv_id=."""

    serializer_class = CitedWorkSerializer
    filterset_class = CitedWorkFilter
    cursor_ordering = ("id",)

    def rows_json(self, rows: list[CitedWork]) -> list[Any]:
        """Return the rows as CitedWorkSerializer describes them."""
        return [cited_work_json(row) for row in rows]

    def get_queryset(self) -> QuerySet[CitedWork]:
        """Return all cited works with their citation counts."""
        return cited_works_with_counts()

    @extend_schema(
        summary="Cited works",
        responses={200: CitedWorkSerializer(many=True), **NOT_MODIFIED, **ERRORS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer a page of works."""
        return super().get(request, *args, **kwargs)


class CitedWorkDetail(DetailView):
    """One cited work with the papers citing it."""

    serializer_class = CitedWorkDetailSerializer

    def get_queryset(self) -> QuerySet[CitedWork]:
        """Return all cited works with their citation counts."""
        return cited_works_with_counts()

    @extend_schema(
        summary="A cited work and the papers citing it",
        responses={200: CitedWorkDetailSerializer, 304: None, **ERRORS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer the work and its first citing papers, or 304."""
        work = self.get_object()
        citing = citing_arxiv_ids(work, limit=CITING_PAPERS_SHOWN)
        serializer = CitedWorkDetailSerializer(work, context={"citing_papers": citing})
        return conditional_response(request, serializer.data)
