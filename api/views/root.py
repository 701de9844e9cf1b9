"""The API root: what /api/ and /api/v1/ list, so a reader can find the endpoints."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..caching import DETAIL
from ..params import check_query_params

# (name, path, methods, what it answers); {placeholders} are filled by the client.
ENDPOINTS = [
    ("papers", "/api/v1/papers", "GET", "papers with records or citations, filterable"),
    ("paper", "/api/v1/papers/{arxiv_id}", "GET", "one paper"),
    ("records", "/api/v1/records", "GET", "records changed since a time (sync feed)"),
    ("record", "/api/v1/records/{arxiv_id}", "GET", "a paper's pith.paper-citation-record.v1"),
    ("observations", "/api/v1/observations", "GET", "references with evidence, filterable"),
    ("observation", "/api/v1/observations/{id}", "GET", "one reference"),
    ("deleted observations", "/api/v1/observations/deleted", "GET", "references retired"),
    ("observation link", "/api/v1/observations/{id}/link", "POST", "link a reference (curators)"),
    ("observation state", "/api/v1/observations/{id}/state", "POST", "set a state (curators)"),
    ("ingestions", "/api/v1/ingestions", "POST", "add papers from arXiv (curators)"),
    ("ingestion", "/api/v1/ingestions/{arxiv_id}", "GET", "a paper's ingestion state"),
    ("cited works", "/api/v1/cited-works", "GET", "canonical cited works"),
    ("cited work", "/api/v1/cited-works/{id}", "GET", "one cited work"),
    ("notice events", "/api/v1/notice-events", "GET", "retractions, corrections and others"),
    ("notice review", "/api/v1/notice-events/{id}/review", "POST", "confirm or dismiss (staff)"),
    ("history", "/api/v1/history/{kind}/{key}", "GET", "change history (token holders)"),
    ("resolver precision", "/api/v1/resolver/precision", "GET",
     "the resolver's verdicts checked and overturned by curators, precision with intervals"),
]


@extend_schema(exclude=True)
class ApiRoot(APIView):
    """List the API's endpoints, its OpenAPI schema and its documentation."""

    permission_classes = [AllowAny]

    def get_view_name(self) -> str:
        """Name the page a browser shows."""
        return "citerec API"

    def get(self, request: Request) -> Response:
        """Answer the endpoint list."""
        check_query_params(request, ())
        body: dict[str, Any] = {
            "name": "citerec API",
            "version": "v1",
            "openapi": "/api/schema/",
            "docs": "/api/docs/",
            "record_schema": "/schema/pith.paper-citation-record.v1.json",
            "endpoints": [
                {"name": name, "path": path, "methods": methods, "description": what}
                for name, path, methods, what in ENDPOINTS
            ],
        }
        return Response(body, headers={"Cache-Control": DETAIL})
