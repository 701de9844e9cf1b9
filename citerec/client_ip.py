"""The client's address, trusting X-Forwarded-For only as far as NUM_PROXIES proxies.

Throttles (DRF) and admin login lockouts (django-axes) both key on it, so both see the same
address: with NUM_PROXIES=0 (the default) the header is ignored and a client cannot pick a new
address per request; with N trusted proxies the Nth address from the right is the client's.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """Return the address the request came from, as far as the trusted proxies tell."""
    remote = str(request.META.get("REMOTE_ADDR") or "")
    proxies = int(getattr(settings, "NUM_PROXIES", 0))
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies <= 0 or not forwarded:
        return remote
    hops = [hop.strip() for hop in str(forwarded).split(",")]
    return hops[-min(proxies, len(hops))] or remote
