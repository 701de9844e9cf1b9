"""Celery jobs on the ingestion queue: thin callers of the ingestion services.

All run with acks_late and are idempotent: a worker killed mid-job leaves the paper as it was
or with its reference list imported, and the re-delivered job finishes it. Jobs that follow
(papers, a harvest or a bundle chunk going on) are queued by the services, never from here.
"""

from __future__ import annotations

import logging
from datetime import date
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from citerec.celery import failure_reason
from curation.audit import Actor
from curation.clients import grobid
from curation.clients.arxiv import ArxivUnavailable
from curation.ingestion import services as ingestion
from curation.ingestion.schedule import PAPER_MAX_RETRIES, PAPER_RETRY_BACKOFF_MAX
from curation.resolution.services import DATABASE_UNAVAILABLE

log = logging.getLogger(__name__)

# Outages of what a paper job calls: the job is retried later (never counted as the paper's fault).
OUTAGES = (ArxivUnavailable, grobid.GrobidBusy, grobid.GrobidUnavailable)


class PaperTask(Task):
    """A paper job: retried with backoff while arXiv, GROBID or the database are away; when
    the retries run out the paper's ingestion says why it failed."""

    autoretry_for = (*OUTAGES, ingestion.PaperBusy, *DATABASE_UNAVAILABLE)
    max_retries = PAPER_MAX_RETRIES
    retry_backoff = 30
    retry_backoff_max = PAPER_RETRY_BACKOFF_MAX
    retry_jitter = True

    def on_retry(self, exc: Exception, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        arxiv_id = kwargs.get("arxiv_id", args[0] if args else None)
        log.warning("paper job %s retries after: %r", arxiv_id, exc)
        if arxiv_id and not isinstance(exc, ingestion.PaperBusy):  # the other job owns the state
            ingestion.ingestion_retry_later(arxiv_id=arxiv_id, error=f"{type(exc).__name__}: {exc}")

    def on_failure(self, exc: Exception, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        arxiv_id = kwargs.get("arxiv_id", args[0] if args else None)
        if not arxiv_id:
            return
        try:
            # Also in the worker's main process, for a job killed past its hard time limit.
            ingestion.ingestion_failed(arxiv_id=arxiv_id, error=failure_reason(exc))
        except Exception:  # noqa: BLE001 - the database may be away; the stale sweep retries
            log.exception("could not record the failure of %s", arxiv_id)


@shared_task(bind=True, base=PaperTask, name="curation.ingestion.tasks.ingest_paper", acks_late=True)
def ingest_paper(
    self: Task, arxiv_id: str, reason: str = ingestion.ADD_REASON, force: bool = False
) -> dict[str, Any]:
    """Build one paper's record from arXiv (metadata, source, references, verdicts)."""
    try:
        return ingestion.paper_ingest(
            arxiv_id=arxiv_id, actor=Actor.for_task(self), reason=reason, force=force
        ).summary()
    except ingestion.PaperBusy as exc:
        if not self.request.is_eager:
            raise  # retried later, once the other job is done
        return {"arxiv_id": arxiv_id, "skipped": str(exc)}
    except OUTAGES as exc:
        if not self.request.is_eager:
            raise  # a worker retries later, with backoff
        # In process (no broker) a retry would run again at once, and again: say it failed,
        # and why; asking for the paper again is the retry.
        error = f"{type(exc).__name__}: {exc}"
        ingestion.ingestion_failed(arxiv_id=arxiv_id, error=error)
        return {"arxiv_id": arxiv_id, "state": "failed", "error": error}


@shared_task(bind=True, name="curation.ingestion.tasks.harvest_arxiv", acks_late=True)
def harvest_arxiv(
    self: Task, set_spec: str = "", from_date: str | None = None
) -> dict[str, Any]:
    """Harvest arXiv metadata since the last harvest; queue papers that have a new version.

    At its soft time limit it stops cleanly (each page is stored with its resumption token)
    and the harvest queues this job again to go on at once; one that stored no page before its
    limit fails instead (no loop: the daily run resumes it).
    """
    outcome = ingestion.harvest_run(
        actor=Actor.for_task(self), reason=ingestion.HARVEST_REASON, set_spec=set_spec,
        from_date=date.fromisoformat(from_date) if from_date else None,
        stop_on=(SoftTimeLimitExceeded,),
    )  # fmt: skip
    if outcome.stopped and not outcome.stored:
        raise SoftTimeLimitExceeded("the harvest stored no page within its time limit")
    return {"records": outcome.records, "pages": outcome.pages,
            "new_versions": len(outcome.new_versions), "continued": outcome.stopped}  # fmt: skip


@shared_task(bind=True, name="curation.ingestion.tasks.requeue_stale_ingestions", acks_late=True)
def requeue_stale_ingestions(self: Task, minutes: int | None = None) -> list[str]:
    """Queue again papers waiting longer than `minutes` (default INGESTION_STALE_MINUTES) with
    no job at work on them, and PDF-only papers once GROBID is configured."""
    return ingestion.stale_ingestions_requeue(actor=Actor.for_task(self), minutes=minutes)


@shared_task(bind=True, name="curation.ingestion.tasks.ingest_bundle_chunk", acks_late=True,
             autoretry_for=DATABASE_UNAVAILABLE, max_retries=8, retry_backoff=2,
             retry_backoff_max=120)  # fmt: skip
def ingest_bundle_chunk(self: Task, chunk_id: int) -> dict[str, Any]:
    """Ingest one chunk of a source bundle (a few dozen papers, no network); stopped at its
    soft time limit, it is queued again at once (read one paper at a time from then on)."""
    return ingestion.bundle_chunk_ingest(
        chunk_id=chunk_id, actor=Actor.for_task(self), reason=ingestion.BUNDLE_REASON,
        stop_on=(SoftTimeLimitExceeded,),
    ).summary()  # fmt: skip
