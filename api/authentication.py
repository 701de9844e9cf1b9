"""Token authentication that refuses guessing: failed tokens are limited per client address.

Without a limit a client can try thousands of tokens a second (each a 401 and a database
lookup). An address that sent more refused tokens than DEFAULT_THROTTLE_RATES["bad_token"]
allows gets 429 with Retry-After for every token until its window ends, before any token is
looked up (a right one too: the address is guessing). A request without a token is not
concerned. Counts live in the cache like the other throttles' and fail open with it.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.request import Request

from .models import ApiToken
from .throttles import BadTokenThrottle


class LimitedFailures:
    """Mixin for a token authentication class: stop an address that keeps sending bad tokens.

    Put it first in the bases of any class with DRF's TokenAuthentication interface
    (`keyword`, `authenticate`), e.g. one that looks tokens up by hash.
    """

    keyword = "Token"

    def authenticate(self, request: Request) -> Any:
        """Refuse a guessing address with 429; count this request's token if it is refused."""
        header = get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None  # no token: nothing to limit
        throttle = BadTokenThrottle()
        if throttle.spent(request):
            raise exceptions.Throttled(
                wait=throttle.wait(), detail="too many refused tokens from this address"
            )
        try:
            return super().authenticate(request)  # type: ignore[misc]
        except exceptions.AuthenticationFailed:
            throttle.count_failure(request)
            raise


class HashedTokenAuthentication(LimitedFailures, TokenAuthentication):
    """Token authentication against ApiToken digests (api/models.py): no key is stored.

    The header is DRF's (`Authorization: Token <key>`), so clients and existing keys are
    unchanged; refused tokens are limited per address as above.
    """

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        """Return the user of the token whose key this is, or refuse it."""
        token = ApiToken.find(key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token
