"""Answer a record's conditional GET with 304 in front of Django (a WSGI wrapper).

Mirrors and browsers revalidate records far more often than records change. A revalidation
needs only the record's version (one indexed statement) and its cached digest, so it is answered
here, before Django's handler: no request signals, no middleware chain, no URL resolution, no
DRF. Which paths are a record's is read from Django's URLconf once (the routes named in
REVALIDATED, their include prefixes joined), so curation/urls.py and api/urls.py stay the only
copy of the routes; matching them is then a regular expression each. The 304 still carries the headers
Django would give it: the record's ETag and Cache-Control (curation.record.http.not_modified) and
the security headers (the response side of SecurityMiddleware and XFrameOptionsMiddleware,
applied here as to every response).

Anything else — no If-None-Match, a stale ETag, a query string, an API token or session, a
throttled client, an unknown paper, a database error, a connection due to be recycled — goes on
to Django unchanged. Falling through is always safe: the views answer the same 304 from the
version read here (curation.record.http.remembered_version), and Django's request signals
close a broken or expired database connection before it is used again.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.handlers.wsgi import WSGIRequest, get_path_info
from django.db import DatabaseError, connection
from django.http import HttpResponse
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.security import SecurityMiddleware
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from django.utils.module_loading import import_string

from ..references.identifiers import looks_like_arxiv_id
from .cache import cached_digest
from .http import JSON_ETAG_SUFFIX, PAGE_ETAG_SUFFIX, not_modified, remember_version
from .selectors import record_version

# The record's routes (view names, as Django's resolver reports them) and the ETag suffix of
# the representation each serves.
REVALIDATED = {
    "api:record": JSON_ETAG_SUFFIX,
    "citation-record-json": JSON_ETAG_SUFFIX,
    "citation-record": PAGE_ETAG_SUFFIX,
}
# Set in the WSGI environ (so in request.META) once this request passed the API's throttles.
_THROTTLED = "citerec.record_throttled"

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def anonymous_and_allowed(meta: dict[str, Any]) -> bool:
    """Return whether an API read is anonymous and the API's throttles let it through.

    `meta` is the WSGI environ (request.META). Counted once per request however often it is
    asked (here, the view, DRF: see throttled_already). A refusal is not counted, so DRF
    refuses the client again with its 429.
    """
    # A substring test may see a session where there is none: that only sends the request on.
    if "HTTP_AUTHORIZATION" in meta or settings.SESSION_COOKIE_NAME in meta.get("HTTP_COOKIE", ""):
        return False
    if throttled_already(meta):
        return True
    # DRF's throttles read only .user, .META and ._request.META of a request.
    shim = SimpleNamespace(user=AnonymousUser(), META=meta, _request=SimpleNamespace(META=meta))
    rest: dict[str, Any] = settings.REST_FRAMEWORK
    paths: list[str] = rest.get("DEFAULT_THROTTLE_CLASSES", [])
    allowed = all(import_string(path)().allow_request(shim, None) for path in paths)
    meta[_THROTTLED] = allowed
    return allowed


def throttled_already(meta: dict[str, Any]) -> bool:
    """Return whether this request already passed the API's throttles (count it once)."""
    return meta.get(_THROTTLED, False) is True


class RecordRevalidation:
    """Wrap the WSGI application: answer If-None-Match revalidations of a record's three URLs."""

    def __init__(self, application: WSGIApp) -> None:
        self.application = application
        never_called = HttpResponse
        self.header_middleware = (
            SecurityMiddleware(never_called),
            XFrameOptionsMiddleware(never_called),
        )
        # Read at start-up, so a route in REVALIDATED that the URLconf lost stops the server.
        self.routes = record_routes()

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        """Answer 304 when the client holds the current version, else call the application."""
        if (
            "HTTP_IF_NONE_MATCH" in environ
            and environ.get("REQUEST_METHOD") in ("GET", "HEAD")
            and not environ.get("QUERY_STRING")
        ):
            response = self._not_modified(environ)
            if response is not None:
                start_response("304 Not Modified", list(response.items()))
                return []
        return self.application(environ, start_response)

    def record_route(self, path: str) -> tuple[str, str] | None:
        """Return (arXiv id, ETag suffix) when path is one of a record's URLs, else None."""
        for pattern, suffix in self.routes:
            match = pattern.fullmatch(path)
            if match is not None:
                arxiv_id = match["arxiv_id"]
                return (arxiv_id, suffix) if looks_like_arxiv_id(arxiv_id) else None
        return None

    def _not_modified(self, environ: dict[str, Any]) -> HttpResponse | None:
        route = self.record_route(get_path_info(environ))
        if route is None:
            return None
        arxiv_id, suffix = route
        # Each of the three counts against the API's throttles: the pages serve the same record.
        if not anonymous_and_allowed(environ):
            return None
        if _connection_due_for_recycling():
            return None
        try:
            version = record_version(arxiv_id)
        except DatabaseError:  # Django's request_started closes the connection it broke
            return None
        if version is None:
            return None
        remember_version(environ, arxiv_id, version)
        digest = cached_digest(version, timezone.now())
        if digest is None:
            return None
        request = WSGIRequest(environ)
        response = not_modified(request, f'W/"{digest}{suffix}"')
        if response is None:
            return None
        for middleware in self.header_middleware:
            response = middleware.process_response(request, response)
        return response


def record_routes() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Return the full path pattern of each route in REVALIDATED, read from the URLconf.

    Matching these costs about 1-5 us a path; Django's resolver, which tries every route before
    the one that matches, 60-90 us (tests check that both agree).
    """
    found = dict(_endpoints(get_resolver().url_patterns, "", ""))
    missing = sorted(set(REVALIDATED) - set(found))
    if missing:
        raise LookupError(f"the URLconf has no route named {', '.join(missing)}")
    return tuple((re.compile("/" + found[name]), suffix) for name, suffix in REVALIDATED.items())


def _endpoints(patterns: list[Any], prefix: str, namespace: str) -> Iterator[tuple[str, str]]:
    """Yield (view name, regex from the root) of every route, includes walked in order."""
    for entry in patterns:
        regex = entry.pattern.regex.pattern.removeprefix("^")
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _endpoints(entry.url_patterns, prefix + regex, inner)
        elif isinstance(entry, URLPattern) and entry.name:
            yield f"{namespace}{entry.name}", prefix + regex


def _connection_due_for_recycling() -> bool:
    """Return whether this thread's connection is past CONN_MAX_AGE or has seen an error.

    Django checks this at every request's start; requests answered here skip those signals, so
    such a request is sent on to Django, which closes the connection before its own use.
    """
    close_at = connection.close_at
    return connection.errors_occurred or (close_at is not None and time.monotonic() >= close_at)
