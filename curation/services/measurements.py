"""External citation measurements: a dated count from one named source (SPEC §1, issue 8).

A measurement is never summed with another source's: each source keeps its own item, and a
new measurement from the same source replaces the previous one (which stays in history).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction

from ..audit import Actor, audited
from ..models import ExternalCitationMeasurement, Paper
from ..record.timestamps import format_micro_z

CROSSREF = "crossref"


def measurement_v1(*, source: str, count: int, observed_at: datetime, doi: str) -> dict[str, Any]:
    """Return the v1 `external_citation_measurements` item."""
    return {
        "count": count,
        "doi": doi,
        "measure": "is-referenced-by-count" if source == CROSSREF else "citation_count",
        "observed_at": format_micro_z(observed_at),
        "source": source,
    }


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
