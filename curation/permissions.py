"""Staff groups and what each may do in the admin (and `can_curate`, asked by every curator screen).

- "Curators" edit references (observations, their resolutions) and cited works;
- "Notice reviewers" review notice events (the notices app grants its own models' permissions;
  here they only get to read references);
- "Read-only staff" see everything and change nothing.

`ensure_groups()` is idempotent: called after every migrate (post_migrate), it creates missing
groups and adds missing permissions, never removing what an administrator added.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from django.http import HttpRequest

CURATORS = "Curators"
# What makes a curator, on every curator screen (the admin's and each app's).
CURATE_PERMISSION = "curation.change_observation"
NOTICE_REVIEWERS = "Notice reviewers"
READ_ONLY_STAFF = "Read-only staff"

# The apps whose models staff look at.
_VIEWED_APPS = ("curation", "resolution", "notices", "ingestion")
_CURATOR_CHANGES = (
    ("curation", "change_observation"),
    ("curation", "change_resolution"),
    ("curation", "change_citedwork"),
)
_REFERENCE_VIEWS = (
    ("curation", "view_observation"),
    ("curation", "view_resolution"),
    ("curation", "view_citedwork"),
    ("curation", "view_paper"),
)
# What the notices migration granted "Notice reviewers"; granted here too, so a group rebuilt
# after a flush (post_migrate, no migration data) can still decide reviews.
_REVIEWER_CHANGES = (
    ("notices", "view_noticereview"),
    ("notices", "change_noticereview"),
    ("notices", "view_noticeevent"),
    ("notices", "view_sourcereceipt"),
    ("notices", "view_retractionwatchrecord"),
)


def _view_permissions(app_labels: tuple[str, ...]) -> Any:
    from django.contrib.auth.models import Permission

    return Permission.objects.filter(
        content_type__app_label__in=app_labels, codename__startswith="view_"
    )


def _named(pairs: tuple[tuple[str, str], ...]) -> list[Any]:
    from django.contrib.auth.models import Permission

    found = []
    for app_label, codename in pairs:
        permission = Permission.objects.filter(
            content_type__app_label=app_label, codename=codename
        ).first()
        if permission is not None:
            found.append(permission)
    return found


def _create_permissions() -> None:
    """Make sure every app's permissions exist (post_migrate order is per app)."""
    from django.apps import apps
    from django.contrib.auth.management import create_permissions

    for config in apps.get_app_configs():
        if config.label in _VIEWED_APPS:
            create_permissions(config, verbosity=0)


def ensure_groups(**kwargs: Any) -> None:
    """Create the staff groups with their permissions (safe to call any number of times)."""
    from django.contrib.auth.models import Group

    _create_permissions()
    curators, _ = Group.objects.get_or_create(name=CURATORS)
    curators.permissions.add(*_view_permissions(_VIEWED_APPS), *_named(_CURATOR_CHANGES))
    read_only, _ = Group.objects.get_or_create(name=READ_ONLY_STAFF)
    read_only.permissions.add(*_view_permissions(_VIEWED_APPS))
    reviewers, _ = Group.objects.get_or_create(name=NOTICE_REVIEWERS)
    reviewers.permissions.add(*_named(_REFERENCE_VIEWS), *_named(_REVIEWER_CHANGES))


def can_curate(request: HttpRequest) -> bool:
    """Return whether the user may change references (curators and superusers)."""
    user = request.user
    return bool(user.is_active and user.is_staff and user.has_perm(CURATE_PERMISSION))
