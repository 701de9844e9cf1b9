"""What a failed request answers when no view did: JSON under /api/, Django's pages elsewhere.

Django answers a request it refuses before or around a view (a body past
DATA_UPLOAD_MAX_MEMORY_SIZE, more than DATA_UPLOAD_MAX_NUMBER_FIELDS parameters, an uncaught
exception) with its handler400 and handler500 pages, which are HTML. An API client reads JSON,
so under /api/ these handlers answer the API's error document instead (the one DRF's views
answer, api/errors.py), with no detail of a server error: that goes to the log.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

API_PREFIX = "/api/"
NO_STORE = "no-store"
# Why a refused request was refused, by Django's exception for it; the API names it as a code.
_BAD_REQUESTS: dict[type[Exception], tuple[str, str]] = {
    RequestDataTooBig: ("request_too_large", "the request body is larger than this API accepts"),
    TooManyFieldsSent: ("too_many_parameters", "the request has more parameters than allowed"),
}


def error_body(status_code: int, code: str, detail: Any) -> dict[str, Any]:
    """Return the API's error document."""
    return {"error": {"status": status_code, "code": code, "detail": detail}}


def is_api(request: HttpRequest) -> bool:
    """Return whether the request is for the API (answered in JSON)."""
    return request.path.startswith(API_PREFIX)


def api_error(status_code: int, code: str, detail: Any) -> JsonResponse:
    """Return the API's error document as a response nobody caches."""
    response = JsonResponse(error_body(status_code, code, detail), status=status_code)
    response["Cache-Control"] = NO_STORE
    return response


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Answer a request Django refused (handler400): JSON under /api/, naming what was wrong."""
    if not is_api(request):
        return defaults.bad_request(request, exception)
    code, detail = next(
        (found for kind, found in _BAD_REQUESTS.items() if isinstance(exception, kind)),
        ("bad_request", "the request could not be read"),
    )
    return api_error(400, code, detail)


def server_error(request: HttpRequest) -> HttpResponse:
    """Answer an uncaught exception (handler500): JSON under /api/, Django's page elsewhere."""
    if not is_api(request):
        return defaults.server_error(request)
    return api_error(500, "server_error", "the server failed to answer; the error is logged")
