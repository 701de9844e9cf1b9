"""The v1 pieces stored ahead of a record's build: standing notices and citation measurements.

A notice is computed when a link or a source's answer changes and a measurement when a source
is asked, and both are stored in their v1 form; the builder copies them into the record. They
are written here, beside the builder, so the format has one home (SPEC §1, §4).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from ..states import NoticeReason, NoticeState
from .timestamps import format_micro_offset, format_micro_z

CROSSREF = "crossref"  # the measurement source whose count is Crossref's is-referenced-by-count


def no_event_sentence(latest_receipt: str) -> str:
    """Return the v1 sentence for a measured notice with no event."""
    return f"No event found in the named queried sources as of {latest_receipt}."


def missing_notice_reason(*, linked: bool) -> NoticeReason:
    """Return why an observation has no measured notice: no canonical link (neither a work nor
    an arXiv paper), or a link that no source has answered about yet."""
    return (
        NoticeReason.NO_SOURCE_ANSWERED if linked else NoticeReason.CANONICAL_WORK_LINK_UNAVAILABLE
    )


def unavailable_notice(reason: NoticeReason) -> dict[str, Any]:
    """Return the stored v1 fields of an unavailable notice."""
    return {
        "state": NoticeState.UNAVAILABLE.value,
        "reason": reason.value,
        "events": [],
        "source_receipts": [],
        "observation_text": None,
    }


def measured_notice(
    receipts: Iterable[tuple[str, datetime]], v1_events: list[dict[str, Any]]
) -> dict[str, Any]:
    """Return the stored v1 fields of a work's notice from its sources' latest answers
    (source, observed_at) and its public events in v1 form, already in v1 order."""
    shown = [
        {"observed_at": format_micro_offset(observed_at), "source": source}
        for source, observed_at in sorted(receipts)
    ]
    if not shown:
        return unavailable_notice(NoticeReason.NO_SOURCE_ANSWERED)
    latest = max(str(r["observed_at"]) for r in shown)  # one fixed-width format: text order
    return {
        "state": NoticeState.MEASURED.value,
        "reason": None,
        "events": v1_events,
        "source_receipts": shown,
        "observation_text": None if v1_events else no_event_sentence(latest),
    }


def measurement_v1(*, source: str, count: int, observed_at: datetime, doi: str) -> dict[str, Any]:
    """Return the v1 `external_citation_measurements` item."""
    return {
        "count": count,
        "doi": doi,
        "measure": "is-referenced-by-count" if source == CROSSREF else "citation_count",
        "observed_at": format_micro_z(observed_at),
        "source": source,
    }
