"""Content-Security-Policy on every HTML response: scripts, styles and frames only from here.

citerec's pages and the admin load their scripts and styles from static files, never inline, so
an injected `<script>` or `style=` (a reference title, a note) does nothing. A page that cannot
avoid an inline block (Swagger UI's start-up script) marks it with the request's nonce,
`{{ request.csp_nonce }}`, and the policy of that response allows that nonce and nothing else.

JSON answers need no policy (a browser never runs them). With DEBUG on, Django's traceback page
(inline styles and scripts) is left without one, so a developer can read it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

HEADER = "Content-Security-Policy"

# 'self' only: no CDN (Swagger UI comes from the sidecar package). Images also as data: URIs
# (the admin's and Swagger UI's icons in their style sheets).
DIRECTIVES = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
NONCED = ("script-src", "style-src")


class Nonce:
    """A request's nonce, made when a template first asks for it (most pages never do)."""

    def __init__(self) -> None:
        self.value: str | None = None

    def __str__(self) -> str:
        if self.value is None:
            self.value = secrets.token_urlsafe(18)
        return self.value


def policy(nonce: str | None = None) -> str:
    """Return the policy, allowing inline blocks that carry nonce when one was used."""
    directives = dict(DIRECTIVES)
    if nonce is not None:
        for name in NONCED:
            directives[name] += f" 'nonce-{nonce}'"
    return "; ".join(f"{name} {value}" for name, value in directives.items())


POLICY = policy()


class ContentSecurityPolicyMiddleware:
    """Give each HTML response the policy (with its nonce when the page used one)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        """Offer the page a nonce, then set the policy on an HTML answer."""
        nonce = Nonce()
        request.csp_nonce = nonce  # type: ignore[attr-defined]
        response = self.get_response(request)
        if HEADER in response or not response.get("Content-Type", "").startswith("text/html"):
            return response
        if settings.DEBUG and response.status_code >= 500:  # Django's traceback page
            return response
        response[HEADER] = POLICY if nonce.value is None else policy(nonce.value)
        return response
