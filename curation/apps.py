"""The curation app: papers, observations, resolutions, notices and their history."""

from django.apps import AppConfig


class CurationConfig(AppConfig):
    name = "curation"
    default_auto_field = "django.db.models.BigAutoField"
