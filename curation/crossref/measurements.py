"""Ask Crossref how often a paper's published DOI is cited (`is-referenced-by-count`)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from curation.audit import Actor
from curation.models import Paper
from curation.services.measurements import CROSSREF, paper_record_measurement

from .client import CrossrefClient, CrossrefError, get_client


@dataclass(frozen=True)
class MeasureOutcome:
    """What one measurement attempt did, in words a person can act on."""

    arxiv_id: str
    measured: bool
    detail: str


def measure_paper(
    paper: Paper, *, actor: Actor, client: CrossrefClient | None = None
) -> MeasureOutcome:
    """Fetch and store the Crossref citation count of the paper's published DOI."""
    doi = (paper.doi or "").strip().lower()
    if not doi:
        return MeasureOutcome(paper.arxiv_id, False, "no published DOI")
    try:
        message = (client or get_client()).work(doi)
    except CrossrefError as exc:  # offline or unavailable: nothing is stored, never a zero
        return MeasureOutcome(paper.arxiv_id, False, f"Crossref not answered: {exc}")
    if message is None:
        return MeasureOutcome(paper.arxiv_id, False, f"{doi} is not in Crossref")
    count = message.get("is-referenced-by-count")
    if not isinstance(count, int):
        return MeasureOutcome(paper.arxiv_id, False, f"{doi}: Crossref gave no citation count")
    paper_record_measurement(
        paper=paper,
        source=CROSSREF,
        count=count,
        doi=doi,
        observed_at=timezone.now(),
        actor=actor,
        reason="Crossref is-referenced-by-count",
    )
    return MeasureOutcome(paper.arxiv_id, True, f"{doi}: {count}")
