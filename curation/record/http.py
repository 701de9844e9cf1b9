"""Conditional responses: the one path serving a record (HTML page, .json URL, API), and ETags.

A record's ETag is weak, `W/"<context_digest>"` (SPEC §1 "Caching"); the HTML page adds a suffix
naming its representation. A conditional GET is answered with 304 from the record's version and
cached digest, before anything is built or rendered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils import timezone

from .cache import RecordBytes, cached_digest, record_at
from .selectors import Version, record_version

RECORD_CACHE_CONTROL = "public, max-age=60"  # as_of moves by the minute
JSON_CONTENT_TYPE = "application/json; charset=utf-8"
JSON_ETAG_SUFFIX = ""  # the v1 document: W/"<context_digest>" (SPEC §1)
# The HTML page's ETag names the template version too: a new layout is a new representation.
PAGE_ETAG_SUFFIX = ".page-5"  # page-5: the published version (DOI) of a linked arXiv paper


def etag_matches(request: HttpRequest, etag: str) -> bool:
    """Return whether If-None-Match names etag, compared weakly (RFC 9110 §13.1.2)."""
    header = request.headers.get("If-None-Match", "")
    if header.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in header.split(","))


def _conditional(
    request: HttpRequest, etag: str, cache_control: str, respond: Callable[[], HttpResponse]
) -> HttpResponse:
    response = HttpResponseNotModified() if etag_matches(request, etag) else respond()
    response["ETag"] = etag
    response["Cache-Control"] = cache_control
    return response


def conditional_json(
    request: HttpRequest, body: bytes, etag: str, cache_control: str
) -> HttpResponse:
    """Answer canonical JSON bytes with an ETag, or 304 when the client already has them."""
    return _conditional(
        request, etag, cache_control, lambda: HttpResponse(body, content_type=JSON_CONTENT_TYPE)
    )


@dataclass(frozen=True)
class Representation:
    """How a record is answered: its ETag suffix and how its body is made from the bytes."""

    etag_suffix: str
    render: Callable[[HttpRequest, RecordBytes], HttpResponse]

    def etag(self, digest: str) -> str:
        """Return the weak ETag of this representation of a record with this digest."""
        return f'W/"{digest}{self.etag_suffix}"'


JSON = Representation(
    JSON_ETAG_SUFFIX, lambda request, record: HttpResponse(record.body, JSON_CONTENT_TYPE)
)


def not_modified(request: HttpRequest, etag: str) -> HttpResponse | None:
    """Return a record's 304 when the request names etag, else None."""
    if not etag_matches(request, etag):
        return None
    return _conditional(request, etag, RECORD_CACHE_CONTROL, _never)


# Where the version read in front of Django (curation.record.revalidation) waits for the view.
_VERSION_KEY = "citerec.record_version"


def remember_version(environ: dict[str, Any], arxiv_id: str, version: Version) -> None:
    """Keep the version read for this request in its WSGI environ, so the view does not read
    it again."""
    environ[_VERSION_KEY] = (arxiv_id, version)


def remembered_version(request: HttpRequest, arxiv_id: str) -> Version | None:
    """Return the version read earlier in this request for this paper, if any."""
    found = request.META.get(_VERSION_KEY)
    return found[1] if found is not None and found[0] == arxiv_id else None


def record_response(
    request: HttpRequest, arxiv_id: str, representation: Representation = JSON
) -> HttpResponse | None:
    """Answer a paper's record (or 304), or None when the paper is unknown."""
    version = remembered_version(request, arxiv_id) or record_version(arxiv_id)
    if version is None:
        return None
    now = timezone.now()
    digest = cached_digest(version, now)
    if digest is not None and (done := not_modified(request, representation.etag(digest))):
        return done
    record = record_at(arxiv_id, version, now)
    if record is None:
        return None
    return _conditional(
        request,
        representation.etag(record.digest),
        RECORD_CACHE_CONTROL,
        lambda: representation.render(request, record),
    )


def _never() -> HttpResponse:
    raise AssertionError("a matching ETag is answered with 304")
