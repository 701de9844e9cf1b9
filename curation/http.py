"""HTTP helpers shared by the pages and the API."""

from __future__ import annotations

from django.http import HttpRequest


def etag_matches(request: HttpRequest, etag: str) -> bool:
    """Return whether If-None-Match names etag, compared weakly (RFC 9110 §13.1.2)."""
    header = request.headers.get("If-None-Match", "")
    if header.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in header.split(","))
