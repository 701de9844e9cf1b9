"""What every curator screen needs: the permission to decide."""

from __future__ import annotations

from django.http import HttpRequest

CURATE_PERMISSION = "curation.change_observation"


def can_curate(request: HttpRequest) -> bool:
    """Return whether the user may change references (curators and superusers)."""
    user = request.user
    return bool(user.is_active and user.is_staff and user.has_perm(CURATE_PERMISSION))
