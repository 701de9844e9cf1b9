"""Answer a record's conditional GET with 304 before the rest of the middleware and the views.

Mirrors and browsers revalidate records far more often than records change. A revalidation
needs only the record's version (one indexed statement) and its cached digest, so it is answered
here, right after the security middleware: no session, CSRF, authentication, URL resolution or
DRF. Anything else — no If-None-Match, a stale ETag, a query string, an API token or session,
a throttled client, an unknown paper — goes on to the views unchanged (which reuse the version
read here rather than read it twice).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.module_loading import import_string

from ..references.identifiers import looks_like_arxiv_id
from .cache import cached_digest
from .http import JSON_ETAG_SUFFIX, PAGE_ETAG_SUFFIX, not_modified, remember_version
from .selectors import record_version

_ID = r"(?P<arxiv_id>[A-Za-z0-9.\-]+(?:/[0-9]+)?(?:v[0-9]+)?)"  # as in the URL routes
_API = re.compile(rf"/api/v1/records/{_ID}")
_PAGES = re.compile(rf"/paper/{_ID}/citation-record(?P<json>\.json)?")


def anonymous_and_allowed(request: HttpRequest) -> bool:
    """Return whether an API read is anonymous and the API's throttles let it through.

    Counted once per request however often it is asked (middleware, view, DRF: see
    throttled_already). A refusal is not counted, so DRF refuses the client again with its 429.
    """
    if "HTTP_AUTHORIZATION" in request.META or settings.SESSION_COOKIE_NAME in request.COOKIES:
        return False
    if throttled_already(request):
        return True
    # DRF's throttles read only .user and ._request of a request.
    shim = SimpleNamespace(user=AnonymousUser(), _request=request, META=request.META)
    rest: dict[str, Any] = settings.REST_FRAMEWORK
    paths: list[str] = rest.get("DEFAULT_THROTTLE_CLASSES", [])
    allowed = all(import_string(path)().allow_request(shim, None) for path in paths)
    request._record_throttled = allowed  # type: ignore[attr-defined]
    return allowed


def throttled_already(request: HttpRequest) -> bool:
    """Return whether this request already passed the API's throttles here (count it once)."""
    return getattr(request, "_record_throttled", False) is True


class RecordNotModified:
    """Answer If-None-Match revalidations of a record's three URLs from its version."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        """Answer 304 when the client holds the current version, else pass the request on."""
        if "HTTP_IF_NONE_MATCH" in request.META and request.method in ("GET", "HEAD"):
            response = self._not_modified(request)
            if response is not None:
                return response
        return self.get_response(request)

    def _not_modified(self, request: HttpRequest) -> HttpResponse | None:
        if request.META.get("QUERY_STRING"):
            return None
        path = request.path_info
        api = _API.fullmatch(path)
        match = api or _PAGES.fullmatch(path)
        if match is None or not looks_like_arxiv_id(arxiv_id := match["arxiv_id"]):
            return None
        if api is not None and not anonymous_and_allowed(request):
            return None
        version = record_version(arxiv_id)
        if version is None:
            return None
        remember_version(request, arxiv_id, version)
        digest = cached_digest(version, timezone.now())
        if digest is None:
            return None
        suffix = JSON_ETAG_SUFFIX if api is not None or match["json"] else PAGE_ETAG_SUFFIX
        return not_modified(request, f'W/"{digest}{suffix}"')
