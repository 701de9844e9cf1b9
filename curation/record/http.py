"""HTTP helpers shared by the pages and the API."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified


def etag_matches(request: HttpRequest, etag: str) -> bool:
    """Return whether If-None-Match names etag, compared weakly (RFC 9110 §13.1.2)."""
    header = request.headers.get("If-None-Match", "")
    if header.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in header.split(","))


def conditional_json(
    request: HttpRequest, body: bytes, etag: str, cache_control: str
) -> HttpResponse:
    """Answer canonical JSON bytes with an ETag, or 304 when the client already has them."""
    response = (
        HttpResponseNotModified()
        if etag_matches(request, etag)
        else HttpResponse(body, content_type="application/json; charset=utf-8")
    )
    response["ETag"] = etag
    response["Cache-Control"] = cache_control
    return response
