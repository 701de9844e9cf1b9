"""Celery tasks for notices (routed to the `notices` queue): thin callers of the services."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import Task, shared_task
from django.conf import settings
from django.utils import timezone

from curation.audit import Actor
from curation.models import CitedWork

from .selectors import works_due
from .services import refresh

log = logging.getLogger(__name__)

# Per worker; the Crossref client's shared throttle also holds every worker to Crossref's limit.
REFRESH_RATE_LIMIT = getattr(settings, "NOTICES_REFRESH_RATE_LIMIT", "4/s")


@shared_task(
    bind=True,
    name="curation.notices.tasks.refresh_work",
    acks_late=True,
    rate_limit=REFRESH_RATE_LIMIT,
)
def refresh_work(
    self: Task, work_id: int, reason: str = "scheduled notice refresh"
) -> dict[str, int]:
    """Refresh one cited work; a re-delivery only writes one more receipt."""
    work = CitedWork.objects.filter(pk=work_id).first()
    if work is None:
        return {"work_id": work_id, "notices_changed": 0}
    outcome = refresh(work=work, actor=Actor.for_task(self), reason=reason)
    return {"work_id": work_id, "notices_changed": outcome.notices_changed}


@shared_task(
    bind=True,
    name="curation.notices.tasks.refresh_works",
    acks_late=True,
    rate_limit=REFRESH_RATE_LIMIT,
)
def refresh_works(
    self: Task, work_ids: list[int], reason: str = "scheduled notice refresh"
) -> dict[str, int]:
    """Refresh several cited works, one transaction each (one job per resolved chunk, not one
    per work); a work that fails is logged and left to the never-asked-first scheduled sweep."""
    changed = failed = 0
    for work in CitedWork.objects.filter(pk__in=work_ids).order_by("pk"):
        try:
            changed += refresh(work=work, actor=Actor.for_task(self), reason=reason).notices_changed
        except Exception:  # noqa: BLE001 - one work never stops the others
            log.exception("notice refresh of work %s failed", work.pk)
            failed += 1
    return {"works": len(work_ids), "notices_changed": changed, "failed": failed}


@shared_task(bind=True, name="curation.notices.tasks.refresh_due_works")
def refresh_due_works(self: Task, batch: int = 200, max_age_hours: int = 24 * 7) -> int:
    """Queue a refresh for a batch of cited works not asked about lately (never-asked first)."""
    before = timezone.now() - timedelta(hours=max_age_hours)
    due = works_due(limit=batch, before=before)
    for work_id in due:
        refresh_work.delay(work_id)
    return len(due)
