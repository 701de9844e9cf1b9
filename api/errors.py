"""One JSON error body for every API failure: {"error": {"status", "code", "detail"}}."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from citerec.error_pages import NO_STORE, api_error, error_body

# One error document for the API and for what Django answers under /api/ before or after a view
__all__ = ["NO_STORE", "error_body", "exception_handler", "not_found"]


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Render DRF and Django errors as the API's JSON error body; 500s stay unhandled."""
    if isinstance(exc, DjangoValidationError):
        # Raised by the ORM for values a filter could not convert (e.g. a tampered cursor).
        exc = exceptions.ValidationError(exc.messages)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = "error"
    if isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
    elif isinstance(exc, Http404):
        code = "not_found"
    response.data = error_body(response.status_code, str(code), response.data)
    response["Cache-Control"] = NO_STORE
    return response


# Exempt: an unknown path must answer 404 in JSON for every method, not the CSRF page's HTML 403.
@csrf_exempt
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Answer an unknown API path with a JSON 404."""
    return api_error(status.HTTP_404_NOT_FOUND, "not_found", "no such API endpoint")
