"""External citation measurements: a dated count from one named source (SPEC §1, issue 8).

A measurement is never summed with another source's: each source keeps its own item, and a
new measurement from the same source replaces the previous one (which stays in history).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from ..audit import Actor, audited
from ..clients.crossref import CrossrefClient, CrossrefError, get_client
from ..models import ExternalCitationMeasurement, Paper
from ..record.fragments import CROSSREF, measurement_v1
from ..references.identifiers import doi_key


@transaction.atomic
def paper_record_measurement(
    *,
    paper: Paper,
    source: str,
    count: int,
    doi: str,
    observed_at: datetime,
    actor: Actor,
    reason: str,
) -> ExternalCitationMeasurement:
    """Store a source's dated count for the paper, replacing that source's previous one."""
    document = measurement_v1(source=source, count=count, observed_at=observed_at, doi=doi)
    with audited(actor, reason):
        measurement, _ = ExternalCitationMeasurement.objects.update_or_create(
            paper=paper,
            source=source,
            defaults={"count": count, "observed_at": observed_at, "document": document},
        )
        # Items appear in the record sorted by source name: one stable order for digests.
        for position, item in enumerate(paper.measurements.order_by("source")):
            if item.position != position:
                ExternalCitationMeasurement.objects.filter(pk=item.pk).update(position=position)
    return measurement


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
    doi = doi_key(paper.doi or "")
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
