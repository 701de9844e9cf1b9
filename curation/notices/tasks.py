"""Celery tasks for notices (routed to the `notices` queue): thin callers of the services."""

from __future__ import annotations

import logging

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from curation.audit import Actor
from curation.selectors import cited_work_by_pk

from .selectors import works_by_pk
from .services import due_refreshes_queue, refresh, refresh_many

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
    work = cited_work_by_pk(work_id)
    if work is None:
        return {"work_id": work_id, "notices_changed": 0}
    outcome = refresh(work=work, actor=Actor.for_task(self), reason=reason)
    return {"work_id": work_id, "notices_changed": outcome.notices_changed}


# No rate limit: a batch is one job per resolved chunk, and the calls it makes to Crossref are
# paced by the Crossref client's throttle, shared by every worker.
@shared_task(bind=True, name="curation.notices.tasks.refresh_works", acks_late=True)
def refresh_works(
    self: Task, work_ids: list[int], reason: str = "scheduled notice refresh"
) -> dict[str, int]:
    """Refresh several cited works as one (one job per resolved chunk, one transaction for
    all: `refresh_many`); a work whose sources fail is logged and left to the never-asked-first
    scheduled sweep, the others are stored. At its soft time limit (Crossref's throttle is
    shared by every worker) it stores the works asked and `refresh_many` queues the rest again
    at once; one that asked about no work within the limit fails instead (no loop: the sweep
    asks later)."""
    works = works_by_pk(work_ids)
    batch = refresh_many(
        works=works, actor=Actor.for_task(self), reason=reason, stop_on=(SoftTimeLimitExceeded,)
    )
    if batch.left and len(batch.left) == len(works):
        raise SoftTimeLimitExceeded("no cited work was asked about within the time limit")
    changed = sum(outcome.notices_changed for outcome in batch.outcomes)
    return {"works": len(work_ids), "notices_changed": changed, "failed": len(batch.failed),
            "queued_again": len(batch.left)}  # fmt: skip


@shared_task(bind=True, name="curation.notices.tasks.refresh_due_works")
def refresh_due_works(self: Task, batch: int = 200, max_age_hours: int = 24 * 7) -> int:
    """Queue a refresh for a batch of cited works not asked about lately (never-asked first)."""
    return due_refreshes_queue(batch=batch, max_age_hours=max_age_hours)
