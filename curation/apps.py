"""The curation app: papers, observations, resolutions, notices and their history."""

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CurationConfig(AppConfig):
    name = "curation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Keep the staff groups and their permissions in place after every migrate."""
        from citerec import deploy_checks  # noqa: F401  (registers the cache Redis check)

        from . import lookups  # noqa: F401  (registers field__any)
        from .permissions import ensure_groups

        post_migrate.connect(ensure_groups, sender=self, dispatch_uid="curation.ensure_groups")
