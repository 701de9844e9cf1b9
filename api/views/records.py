"""The v1 record (the same bytes as the public page), the change feed, and its JSON Schema."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from curation.models import Paper
from curation.record.http import record_response
from curation.record.revalidation import anonymous_and_allowed, throttled_already
from curation.record.schema import RECORD_SCHEMA
from curation.record.selectors import papers_by_record_change
from curation.references.identifiers import looks_like_arxiv_id

from ..caching import NOT_MODIFIED, SCHEMA
from ..filters import RecordChangeFilter
from ..params import check_query_params
from ..schema import ERRORS, RECORD_DOCUMENT
from ..serializers.papers import RecordChangeSerializer, record_change_json
from .base import CachedListView


class RecordView(APIView):
    """Serve a paper's pith.paper-citation-record.v1 document.

    Anonymous GETs without parameters (what mirrors and readers send) are answered before DRF
    wraps the request: the same throttles, the same response as the DRF path, a fraction of the
    CPU. Anything else (a token, a session, a query string, an unknown paper, a throttled client)
    takes the DRF path, which gives the API's errors.
    """

    permission_classes = [AllowAny]

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        """Answer the plain anonymous read directly, anything else through DRF."""
        arxiv_id = kwargs["arxiv_id"]
        if (
            request.method in ("GET", "HEAD")
            and not request.META.get("QUERY_STRING")
            and looks_like_arxiv_id(arxiv_id)
            and anonymous_and_allowed(request.META)
        ):
            response = record_response(request, arxiv_id)
            if response is not None:
                return response
        response_: HttpResponse = super().dispatch(request, *args, **kwargs)
        return response_

    def check_throttles(self, request: Request) -> None:
        """Throttle as DRF does, unless this request was already counted before DRF."""
        if not throttled_already(request._request.META):
            super().check_throttles(request)

    @extend_schema(
        operation_id="records_retrieve",
        summary="A paper's citation record (pith.paper-citation-record.v1)",
        description=(
            "The canonical bytes of the record, identical to /paper/<id>/citation-record.json. "
            "The weak ETag is the context digest; If-None-Match gives 304."
        ),
        responses={
            200: OpenApiResponse(RECORD_DOCUMENT, description="The record (canonical JSON)"),
            304: OpenApiResponse(description="The client has this version"),
            **ERRORS,
        },
    )
    def get(self, request: Request, arxiv_id: str) -> HttpResponse:
        """Answer the record's canonical bytes, or 304 when the client has this version."""
        check_query_params(request, ())
        if not looks_like_arxiv_id(arxiv_id):
            raise NotFound("not an arXiv id")
        response = record_response(request, arxiv_id)
        if response is None:
            raise NotFound("unknown paper")
        return response


class RecordChangesView(CachedListView):
    """List the papers whose record changed substantively, oldest change first (sync feed)."""

    serializer_class = RecordChangeSerializer
    filterset_class = RecordChangeFilter
    cursor_ordering = ("record_changed_at", "arxiv_id")

    def rows_json(self, rows: list[Paper]) -> list[Any]:
        """Return the rows as RecordChangeSerializer describes them."""
        return [record_change_json(row) for row in rows]

    @extend_schema(
        summary="Records changed since a time (outbound or inbound observations)",
        responses={200: RecordChangeSerializer(many=True), **NOT_MODIFIED, **ERRORS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer a page of the change feed."""
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Paper]:
        """Return papers with observations, each with the time its record last changed."""
        # A first full sync reads the dump_records export instead of this feed.
        return papers_by_record_change()


@extend_schema(exclude=True)
class RecordSchemaView(APIView):
    """Serve the JSON Schema of pith.paper-citation-record.v1."""

    permission_classes = [AllowAny]
    throttle_classes: list[Any] = []

    def get(self, request: Request) -> JsonResponse:
        """Answer the schema document."""
        check_query_params(request, ())
        response = JsonResponse(RECORD_SCHEMA, content_type="application/schema+json")
        response["Cache-Control"] = SCHEMA
        return response
