"""Crossref jobs on the `crossref` queue."""

from __future__ import annotations

from celery import Task, shared_task

from curation.audit import Actor
from curation.selectors import paper_by_arxiv_id
from curation.services.measurements import measure_paper


@shared_task(bind=True, name="curation.crossref.tasks.measure_citations", acks_late=True)
def measure_citations(self: Task, arxiv_id: str) -> str:
    """Measure one paper's Crossref citation count; a re-delivery just measures again."""
    paper = paper_by_arxiv_id(arxiv_id)
    if paper is None:
        return f"arXiv:{arxiv_id} is not known: nothing measured"
    return measure_paper(paper, actor=Actor.for_task(self)).detail
