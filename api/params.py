"""Query-parameter discipline: unknown or oversized parameters are a 400, never ignored."""

from __future__ import annotations

from collections.abc import Iterable

from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

MAX_PARAM_LENGTH = 256  # longer than any id, date, search phrase or cursor we issue
MAX_PARAMS = 20
# Parameters every endpoint accepts (format negotiation of the browsable API).
COMMON_PARAMS = frozenset({"format"})


def check_query_params(request: Request, allowed: Iterable[str]) -> None:
    """Refuse parameters the endpoint does not know, repeated ones, and oversized values."""
    params = request.query_params
    if len(params) > MAX_PARAMS:
        raise ValidationError({"query": f"at most {MAX_PARAMS} parameters"})
    known = COMMON_PARAMS | set(allowed)
    unknown = sorted(set(params) - known)
    if unknown:
        raise ValidationError(
            {name: f"unknown parameter; expected one of {sorted(known)}" for name in unknown}
        )
    for name in params:
        values = params.getlist(name)
        if len(values) > 1:
            raise ValidationError({name: "give this parameter once"})
        if len(values[0]) > MAX_PARAM_LENGTH or "\x00" in values[0]:
            raise ValidationError({name: f"at most {MAX_PARAM_LENGTH} characters, no NUL"})
