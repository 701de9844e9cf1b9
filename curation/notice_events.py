"""The notice-event vocabulary shared by every notice source (no Django import).

It sits below every app: the notices speak it and the record's JSON Schema lists its types, so
neither app imports the other for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import Any, Final, Literal

Source = Literal["crossref", "retraction_watch", "arxiv"]
SOURCES: Final[frozenset[str]] = frozenset({"crossref", "retraction_watch", "arxiv"})


class EventType(StrEnum):
    """Name what a notice says about a work (SPEC §4 `type`)."""

    RETRACTION = "retraction"
    PARTIAL_RETRACTION = "partial_retraction"
    CORRECTION = "correction"
    EXPRESSION_OF_CONCERN = "expression_of_concern"
    WITHDRAWAL = "withdrawal"
    REINSTATEMENT = "reinstatement"
    REMOVAL = "removal"
    OTHER = "other"


# Most severe first: the review queue must put what makes a cited work unusable
# (gone from the record) ahead of what only qualifies it. A reinstatement undoes
# a retraction, so it is news, but good news; `other` is the least informative.
SEVERITY_ORDER: Final[tuple[EventType, ...]] = (
    EventType.RETRACTION,
    EventType.REMOVAL,
    EventType.WITHDRAWAL,
    EventType.PARTIAL_RETRACTION,
    EventType.EXPRESSION_OF_CONCERN,
    EventType.CORRECTION,
    EventType.REINSTATEMENT,
    EventType.OTHER,
)
_SEVERITY_RANK: Final[dict[EventType, int]] = {t: i for i, t in enumerate(SEVERITY_ORDER)}


def severity_rank(event_type: EventType) -> int:
    """Return the review-queue rank of a type: 0 is the most severe."""
    return _SEVERITY_RANK[event_type]


def _vocabulary_key(value: str) -> str:
    """Return a source term folded so that case, hyphens and spaces do not matter."""
    return re.sub(r"[\s\-]+", "_", value.strip().lower())


# Crossref `update-to`/`updated-by` types (publisher deposits and the
# Retraction Watch feed), including spellings seen in older deposits.
_CROSSREF_TYPES: Final[dict[str, EventType]] = {
    "retraction": EventType.RETRACTION,
    "retracted": EventType.RETRACTION,
    "partial_retraction": EventType.PARTIAL_RETRACTION,
    "correction": EventType.CORRECTION,
    "erratum": EventType.CORRECTION,
    "corrigendum": EventType.CORRECTION,
    "expression_of_concern": EventType.EXPRESSION_OF_CONCERN,
    "concern": EventType.EXPRESSION_OF_CONCERN,
    "withdrawal": EventType.WITHDRAWAL,
    "withdrawn": EventType.WITHDRAWAL,
    "removal": EventType.REMOVAL,
    "removed": EventType.REMOVAL,
    "reinstatement": EventType.REINSTATEMENT,
    "reinstated": EventType.REINSTATEMENT,
    # Not notices about the standing of the work: kept, but as `other`.
    "new_version": EventType.OTHER,
    "new_edition": EventType.OTHER,
    "addendum": EventType.OTHER,
    "clarification": EventType.OTHER,
}

_RETRACTION_WATCH_NATURES: Final[dict[str, EventType]] = {
    "retraction": EventType.RETRACTION,
    "correction": EventType.CORRECTION,
    "expression_of_concern": EventType.EXPRESSION_OF_CONCERN,
    "reinstatement": EventType.REINSTATEMENT,
}


def _lookup(vocabulary: dict[str, EventType], term: str | None) -> EventType:
    """Return the EventType for a source term; an unknown or missing term is `other`."""
    return vocabulary.get(_vocabulary_key(term), EventType.OTHER) if term else EventType.OTHER


def event_type_from_crossref(update_type: str | None) -> EventType:
    """Map a Crossref update type (e.g. `erratum`, `expression_of_concern`) to an EventType."""
    return _lookup(_CROSSREF_TYPES, update_type)


def event_type_from_retraction_watch(nature: str | None) -> EventType:
    """Map a Retraction Watch `RetractionNature` value to an EventType."""
    return _lookup(_RETRACTION_WATCH_NATURES, nature)


@dataclass(frozen=True, slots=True)
class ReportedEvent:
    """One notice a source reports about a canonical work."""

    type: EventType
    source: Source
    work_doi: str | None = None
    work_arxiv_id: str | None = None
    notice_doi: str | None = None
    notice_url: str | None = None
    date: date | None = None
    reasons: tuple[str, ...] = field(default=())
    source_record_id: str | None = None

    def __post_init__(self) -> None:
        if self.work_doi is None and self.work_arxiv_id is None:
            raise ValueError("a notice event needs work_doi or work_arxiv_id")
        if self.source not in SOURCES:
            raise ValueError(f"unknown notice source {self.source!r}")
        # Accept the plain string so callers reading stored rows need not wrap it.
        object.__setattr__(self, "type", EventType(self.type))

    @property
    def sort_key(self) -> tuple[Any, ...]:
        """Order events as v1 lists them: by date (undated last), then type."""
        # The tail makes the order total, so a record's digest never depends on
        # the order in which a source happened to answer.
        return (
            self.date is None,
            self.date or date.min,
            self.type.value,
            self.source,
            self.notice_doi or "",
            self.source_record_id or "",
        )

    def to_v1(self) -> dict[str, Any]:
        """Return the event as a `pith.paper-citation-record.v1` event dict."""
        return event_v1(self)


def event_v1(event: Any) -> dict[str, Any]:
    """Return a v1 event dict from anything with the event's attributes (a stored row too)."""
    return {
        "date": event.date.isoformat() if event.date else None,
        "notice_doi": event.notice_doi,
        "notice_url": event.notice_url,
        "reasons": list(event.reasons),
        "source": str(event.source),
        "source_record_id": event.source_record_id,
        "type": str(event.type),
    }


def sorted_v1(events: Iterable[ReportedEvent]) -> list[dict[str, Any]]:
    """Return events as v1 dicts in v1 order."""
    return [e.to_v1() for e in sorted(events, key=lambda e: e.sort_key)]


def v1_sort_key(event: Mapping[str, Any]) -> tuple[Any, ...]:
    """Order v1 event dicts exactly as `ReportedEvent.sort_key` orders events."""
    # ISO dates sort as text in date order, so stored events need no parsing to be ordered.
    return (
        event["date"] is None,
        event["date"] or "",
        event["type"],
        event["source"],
        event["notice_doi"] or "",
        event["source_record_id"] or "",
    )


def most_severe(events: Iterable[ReportedEvent]) -> ReportedEvent | None:
    """Return the event the review queue should show first, or None."""
    return min(events, key=lambda e: (severity_rank(e.type), e.sort_key), default=None)
