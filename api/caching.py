"""ETags, conditional GETs and the Cache-Control of each kind of endpoint (SPEC §1 "Caching")."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from drf_spectacular.utils import OpenApiResponse
from rest_framework import status
from rest_framework.response import Response

from curation.record.canonical import sha256_digest
from curation.record.http import RECORD_CACHE_CONTROL, etag_matches

RECORD = RECORD_CACHE_CONTROL  # the record page, its .json and the API: as_of moves by the minute
DETAIL = "public, max-age=60"
LIST = "public, max-age=30"
SCHEMA = "public, max-age=3600"
PRIVATE = "private, no-store"  # history: authenticated readers only, never in shared caches

# A list page's weak ETag names the page's rows as they stand (api/page_cache.py).
NOT_MODIFIED = {
    304: OpenApiResponse(
        description=(
            "If-None-Match names this page's ETag: no row on it changed (weak ETag; any change "
            "to a row of the page, or to which rows it holds, gives the page a new one)"
        )
    )
}


def conditional_response(request: HttpRequest, data: Any, cache_control: str = DETAIL) -> Response:
    """Answer data with a weak ETag of its canonical JSON, or 304 when the client has it."""
    etag = f'W/"{sha256_digest(data)}"'
    headers = {"ETag": etag, "Cache-Control": cache_control}
    if etag_matches(request, etag):
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
    return Response(data, headers=headers)
