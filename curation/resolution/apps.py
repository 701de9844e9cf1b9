"""Resolution: local catalogues, candidates, verdicts with evidence, resolver runs."""

from django.apps import AppConfig


class ResolutionConfig(AppConfig):
    name = "curation.resolution"
    label = "resolution"
    default_auto_field = "django.db.models.BigAutoField"
