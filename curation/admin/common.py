"""What every curator screen needs: the audit actor and the permission to decide."""

from __future__ import annotations

from django.http import HttpRequest

from curation.audit import Actor
from curation.states import ChangeSource

CURATE_PERMISSION = "curation.change_observation"


def curator_actor(request: HttpRequest) -> Actor:
    """Return the audit actor for the staff member acting in the admin."""
    user = request.user
    return Actor(name=f"user:{user.get_username()}", source=ChangeSource.ADMIN, user_id=user.pk)


def can_curate(request: HttpRequest) -> bool:
    """Return whether the user may change references (curators and superusers)."""
    user = request.user
    return bool(user.is_active and user.is_staff and user.has_perm(CURATE_PERMISSION))
