"""A time limit on every SQL statement of a web process, and the answer when one is cut.

A request holds one of the few web threads for as long as its statements run: a staff search of
thousands of terms held one for 24 s while API clients waited. The WSGI entry point
(citerec/wsgi.py), which only web processes load, asks PostgreSQL to cancel any statement past
WEB_STATEMENT_TIMEOUT_MS (`-c statement_timeout=` in the connection's startup options, so it
costs no statement). Workers, beat, migrations and management commands never load it: their
long statements (a catalogue import, a resolution chunk) are legitimate.

A cancelled statement raises psycopg's QueryCanceled, which Django wraps in OperationalError;
StatementTimeoutMiddleware turns it into a 503 that says so (JSON under /api/).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from psycopg.errors import QueryCanceled

from .error_pages import api_error, is_api

# A cut statement is a load refused, not an outage: a client may try again soon.
RETRY_AFTER_SECONDS = 30
TOO_SLOW = (
    "the request took longer than the web process allows for one database statement; "
    "narrow it (fewer search words, a filter) or try again later"
)


def limit_statements(databases: Mapping[str, Any], milliseconds: int) -> None:
    """Add statement_timeout to each connection's startup options (0 leaves them unlimited).

    The settings' dicts are the ones Django's connections read at connect, so this must run
    before the process serves a request; connections opened later carry the limit.
    """
    if milliseconds <= 0:
        return
    for database in databases.values():
        options = database.setdefault("OPTIONS", {})
        limit = f"-c statement_timeout={milliseconds}"
        options["options"] = f"{options.get('options', '')} {limit}".strip()


def cancelled_statement(exc: BaseException) -> bool:
    """Return whether exc is, or was raised from, a statement PostgreSQL cancelled."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, QueryCanceled):
            return True
        seen = seen.__cause__
    return False


class StatementTimeoutMiddleware:
    """Answer a request whose statement was cancelled with 503, not a server error."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """Return the 503 for a cancelled statement; leave every other exception to Django."""
        if not cancelled_statement(exception):
            return None
        if is_api(request):
            response: HttpResponse = api_error(503, "statement_timeout", TOO_SLOW)
        else:
            page = render_to_string("503.html", {"detail": TOO_SLOW}, request=request)
            response = HttpResponse(page, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
