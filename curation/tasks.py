"""Celery tasks: thin callers of the services, each run recorded under its task name and id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from celery import Task, shared_task

from .audit import Actor
from .record.input_checks import load_record
from .services import record_import


@shared_task(bind=True, name="curation.tasks.import_record_file", acks_late=True)
def import_record_file(self: Task, path: str, reason: str) -> dict[str, Any]:
    """Import one record file in the background; idempotent, so a re-delivery is harmless."""
    document = load_record(Path(path))
    outcome = record_import(document=document, actor=Actor.for_task(self), reason=reason)
    return {"arxiv_id": outcome.arxiv_id, "created": outcome.created, "updated": outcome.updated}
