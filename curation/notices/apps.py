"""Standing notices: events from named sources, receipts, and staff review."""

from django.apps import AppConfig


class NoticesConfig(AppConfig):
    name = "curation.notices"
    label = "notices"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Links to works no source was asked about are followed by a refresh job: the services
        # get the task from here, so they never import the tasks (a face) themselves.
        from .services.follow import use_background_refresh
        from .tasks import refresh_works

        use_background_refresh(
            lambda work_ids, reason: refresh_works.delay(work_ids, reason=reason)
        )
