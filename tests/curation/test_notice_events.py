"""Tests for the notice-event vocabulary."""

from __future__ import annotations

from datetime import date

import pytest

from curation.notice_events import (
    SEVERITY_ORDER,
    EventType,
    ReportedEvent,
    event_type_from_crossref,
    event_type_from_retraction_watch,
    most_severe,
    severity_rank,
    sorted_v1,
)

V1_KEYS = {"date", "notice_doi", "notice_url", "reasons", "source", "source_record_id", "type"}


@pytest.mark.parametrize(
    ("crossref_type", "expected"),
    [
        ("retraction", EventType.RETRACTION),
        ("Retraction", EventType.RETRACTION),
        ("partial_retraction", EventType.PARTIAL_RETRACTION),
        ("partial-retraction", EventType.PARTIAL_RETRACTION),
        ("correction", EventType.CORRECTION),
        ("erratum", EventType.CORRECTION),
        ("corrigendum", EventType.CORRECTION),
        ("expression_of_concern", EventType.EXPRESSION_OF_CONCERN),
        ("expression-of-concern", EventType.EXPRESSION_OF_CONCERN),
        ("Expression of Concern", EventType.EXPRESSION_OF_CONCERN),
        ("concern", EventType.EXPRESSION_OF_CONCERN),
        ("withdrawal", EventType.WITHDRAWAL),
        ("removal", EventType.REMOVAL),
        ("reinstatement", EventType.REINSTATEMENT),
        ("new_version", EventType.OTHER),
        ("new_edition", EventType.OTHER),
        ("addendum", EventType.OTHER),
        ("clarification", EventType.OTHER),
        ("something_new", EventType.OTHER),
        ("", EventType.OTHER),
        (None, EventType.OTHER),
    ],
)
def test_event_type_from_crossref(crossref_type: str | None, expected: EventType) -> None:
    assert event_type_from_crossref(crossref_type) is expected


@pytest.mark.parametrize(
    ("nature", "expected"),
    [
        ("Retraction", EventType.RETRACTION),
        ("Correction", EventType.CORRECTION),
        ("Expression of concern", EventType.EXPRESSION_OF_CONCERN),
        ("Expression of Concern", EventType.EXPRESSION_OF_CONCERN),
        ("Reinstatement", EventType.REINSTATEMENT),
        (" retraction ", EventType.RETRACTION),
        ("Retraction and Replacement", EventType.OTHER),
        ("", EventType.OTHER),
        (None, EventType.OTHER),
    ],
)
def test_event_type_from_retraction_watch(nature: str | None, expected: EventType) -> None:
    assert event_type_from_retraction_watch(nature) is expected


def test_severity_order_covers_every_type_most_severe_first() -> None:
    assert set(SEVERITY_ORDER) == set(EventType)
    assert severity_rank(EventType.RETRACTION) == 0
    assert severity_rank(EventType.OTHER) == len(EventType) - 1
    assert severity_rank(EventType.EXPRESSION_OF_CONCERN) < severity_rank(EventType.CORRECTION)


def _event(**overrides: object) -> ReportedEvent:
    fields: dict[str, object] = {
        "type": EventType.RETRACTION,
        "source": "retraction_watch",
        "work_doi": "10.1016/j.micpro.2020.103053",
        "notice_doi": "10.1016/j.micpro.2024.105024",
        "date": date(2024, 2, 14),
        "reasons": ("Rogue Editor",),
        "source_record_id": "72853",
    }
    fields.update(overrides)
    return ReportedEvent(**fields)  # type: ignore[arg-type]


def test_to_v1_is_exactly_the_spec_event() -> None:
    assert _event().to_v1() == {
        "date": "2024-02-14",
        "notice_doi": "10.1016/j.micpro.2024.105024",
        "notice_url": None,
        "reasons": ["Rogue Editor"],
        "source": "retraction_watch",
        "source_record_id": "72853",
        "type": "retraction",
    }


def test_to_v1_gives_null_for_what_the_source_does_not_give() -> None:
    v1 = _event(date=None, notice_doi=None, source_record_id=None, reasons=()).to_v1()
    assert set(v1) == V1_KEYS
    assert v1["date"] is None and v1["notice_doi"] is None and v1["reasons"] == []


def test_sorted_v1_orders_by_date_then_type_undated_last() -> None:
    eoc = _event(type=EventType.EXPRESSION_OF_CONCERN, date=date(2021, 6, 25))
    correction = _event(type=EventType.CORRECTION, date=date(2024, 2, 14))
    retraction = _event(date=date(2024, 2, 14))
    undated = _event(type=EventType.OTHER, date=None)
    ordered = sorted_v1([undated, retraction, eoc, correction])
    assert [e["type"] for e in ordered] == [
        "expression_of_concern",
        "correction",
        "retraction",
        "other",
    ]


def test_most_severe_picks_the_retraction() -> None:
    eoc = _event(type=EventType.EXPRESSION_OF_CONCERN)
    retraction = _event()
    assert most_severe([eoc, retraction]) is retraction
    assert most_severe([]) is None


def test_notice_event_needs_a_canonical_work() -> None:
    with pytest.raises(ValueError, match="work_doi or work_arxiv_id"):
        _event(work_doi=None)


def test_notice_event_rejects_unknown_source() -> None:
    with pytest.raises(ValueError, match="unknown notice source"):
        _event(source="pubmed")


def test_notice_event_accepts_the_plain_type_string() -> None:
    assert _event(type="correction").type is EventType.CORRECTION
