"""Standing notices: events from named sources, receipts, and staff review."""

from django.apps import AppConfig


class NoticesConfig(AppConfig):
    name = "curation.notices"
    label = "notices"
    default_auto_field = "django.db.models.BigAutoField"
