"""Celery tasks: thin callers of the services, each run recorded under its task name and id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from celery import Task, shared_task

from .audit import Actor
from .record.input_checks import load_record
from .selectors import paper_by_arxiv_id
from .services import record_import, reference_groups
from .services.measurements import measure_paper


@shared_task(bind=True, name="curation.tasks.import_record_file", acks_late=True)
def import_record_file(self: Task, path: str, reason: str) -> dict[str, Any]:
    """Import one record file in the background; idempotent, so a re-delivery is harmless."""
    document = load_record(Path(path))
    outcome = record_import(document=document, actor=Actor.for_task(self), reason=reason)
    return {"arxiv_id": outcome.arxiv_id, "created": outcome.created, "updated": outcome.updated}


# Named as when it lived in curation/crossref/tasks.py: messages already queued under that name
# still find it, and CELERY_TASK_ROUTES sends it to the `crossref` queue by that name.
@shared_task(bind=True, name="curation.crossref.tasks.measure_citations", acks_late=True)
def measure_citations(self: Task, arxiv_id: str) -> str:
    """Measure one paper's Crossref citation count; a re-delivery just measures again."""
    paper = paper_by_arxiv_id(arxiv_id)
    if paper is None:
        return f"arXiv:{arxiv_id} is not known: nothing measured"
    return measure_paper(paper, actor=Actor.for_task(self)).detail


@shared_task(bind=True, name="curation.tasks.group_decisions_follow", acks_late=True)
def group_decisions_follow(self: Task, observation_ids: list[str]) -> dict[str, int]:
    """Give new members of decided groups the decision; a re-delivery finds them given."""
    outcome = reference_groups.group_decisions_follow(
        observation_ids=observation_ids, actor=Actor.for_task(self)
    )
    return {"applied": outcome.done, "proposed": outcome.proposed, "failed": len(outcome.skipped)}


@shared_task(bind=True, name="curation.tasks.group_decision_continue", acks_late=True)
def group_decision_continue(self: Task, decision_id: int) -> dict[str, int]:
    """Decide the next chunk of a group's members; a re-delivery decides what is left."""
    outcome = reference_groups.group_decision_continue(
        decision_id=decision_id, task_id=self.request.id
    )
    return {"decided": outcome.done, "more": int(outcome.queued)}


@shared_task(bind=True, name="curation.tasks.group_undo_continue", acks_late=True)
def group_undo_continue(self: Task, decision_id: int) -> dict[str, int]:
    """Revert the next chunk of an undone group decision; a re-delivery reverts what is left."""
    outcome = reference_groups.group_undo_continue(decision_id=decision_id, task_id=self.request.id)
    return {"reverted": outcome.done, "more": int(outcome.queued)}
