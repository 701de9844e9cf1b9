"""Reader pages are throttled as the API is: its budgets, keyed by client address or user.

The pages count against the API's own throttles (settings.READER_THROTTLE_CLASSES, the API's
DEFAULT_THROTTLE_CLASSES), so the record's .json URL, which serves the API's bytes, is no way
around the API's anonymous limit, and a client has one budget whichever URL it reads. Dearer
pages add throttles of their own (the integrity page: settings.INTEGRITY_THROTTLE_CLASSES).

Who the client is: a signed-in reader (staff, curators) by the session, a token holder by the
API's token authentication (whose failures are limited per address), anyone else by address
(citerec/client_ip.py). A refusal is a short plain-text 429 with Retry-After.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import wraps
from typing import Any, cast

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.settings import api_settings

from ..record.revalidation import throttled_already

View = Callable[..., HttpResponse]


def throttled(*extra: str) -> Callable[[View], View]:
    """Decorate a reader page: count it against the API's throttles and the settings named."""

    def decorate(view: View) -> View:
        @wraps(view)
        def throttled_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            refusal = _refusal(request, extra)
            return refusal if refusal is not None else view(request, *args, **kwargs)

        return throttled_view

    return decorate


def _refusal(request: HttpRequest, extra: tuple[str, ...]) -> HttpResponse | None:
    """Return the answer refusing this request, or None when its client may go on."""
    try:
        client = _client(request)
    except exceptions.APIException as refused:  # a bad token (401) or a guessing address (429)
        return _plain(refused.status_code, str(refused.detail), getattr(refused, "wait", None))
    # The record's URLs may have been counted already, in front of Django (revalidation).
    paths: list[str] = []
    if not throttled_already(request.META):
        paths += cast(list[str], settings.READER_THROTTLE_CLASSES)
    for name in extra:
        paths += cast(list[str], getattr(settings, name))
    waits = []
    for path in paths:  # every throttle counts the request, as DRF's check_throttles does
        throttle = import_string(path)()
        if not throttle.allow_request(client, None):
            waits.append(throttle.wait() or 1.0)
    if not waits:
        return None
    wait = math.ceil(max(waits))
    return _plain(429, f"Too many requests: try again in {wait} s.", wait)


def _client(request: HttpRequest) -> HttpRequest | Request:
    """Return what the throttles read the client from: the request, with the token's user
    when it carries a token (the session's otherwise, from AuthenticationMiddleware)."""
    if "HTTP_AUTHORIZATION" not in request.META:
        return request
    authenticators = [cls() for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES]
    api_request = Request(request, authenticators=authenticators)
    api_request.user  # noqa: B018 — authenticates now: a bad token raises here
    return api_request


def _plain(status: int, text: str, wait: float | None) -> HttpResponse:
    response = HttpResponse(f"{text}\n", status=status, content_type="text/plain; charset=utf-8")
    if wait is not None:
        response["Retry-After"] = str(math.ceil(wait))
    response["Cache-Control"] = "no-store"
    return response
