"""Who may curate through the API: members of the Curators group, as in the admin."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from curation.permissions import CURATORS
from curation.selectors import is_curator


class IsCurator(BasePermission):
    """Allow authenticated members of the Curators group."""

    message = f"curation through the API is for members of the {CURATORS!r} group"

    def has_permission(self, request: Request, view: Any) -> bool:
        """Return whether the user is a curator."""
        user = request.user
        return bool(user and user.is_authenticated and is_curator(user))
