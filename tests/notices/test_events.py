"""Tests for the notice-event vocabulary."""

from __future__ import annotations

from datetime import date

import pytest

from curation.notices.events import (
    SEVERITY_ORDER,
    EventType,
    ReportedEvent,
    arxiv_id_from_doi,
    canonical_doi,
    event_type_from_crossref,
    event_type_from_retraction_watch,
    is_arxiv_doi,
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


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("10.1016/j.micpro.2020.103053", "10.1016/j.micpro.2020.103053"),
        ("10.2147/IJN.S97476", "10.2147/ijn.s97476"),
        ("https://doi.org/10.2147/IJN.S97476", "10.2147/ijn.s97476"),
        ("http://dx.doi.org/10.2147/IJN.S97476", "10.2147/ijn.s97476"),
        ("doi:10.2147/IJN.S97476", "10.2147/ijn.s97476"),
        ("DOI: 10.2147/IJN.S97476.", "10.2147/ijn.s97476"),
        ("  10.1155/2021/6907871;  ", "10.1155/2021/6907871"),
        (
            "10.1002/1096-9098(200007)74:3%3C201::AID-JSO8%3E3.0.CO;2-5",
            "10.1002/1096-9098(200007)74:3<201::aid-jso8>3.0.co;2-5",
        ),
        (
            "10.1002/(SICI)1097-0258(19980430)17:8<857::AID-SIM777>3.0.CO,2-E",
            "10.1002/(sici)1097-0258(19980430)17:8<857::aid-sim777>3.0.co,2-e",
        ),
        ("(see 10.1016/s0140-6736(20)30183-5)", None),
        ("10.1016/s0140-6736(20)30183-5)", "10.1016/s0140-6736(20)30183-5"),
        ("10.48550/arXiv.2412.14374", "10.48550/arxiv.2412.14374"),
        ("unavailable", None),
        ("", None),
        (None, None),
        ("10.1000", None),
        ("10.1000/has space", None),
    ],
)
def test_canonical_doi(raw: str | None, expected: str | None) -> None:
    assert canonical_doi(raw) == expected


def test_canonical_doi_upper_and_lower_case_compare_equal() -> None:
    assert canonical_doi("10.1016/J.MICPRO.2020.103053") == canonical_doi(
        "10.1016/j.micpro.2020.103053"
    )


@pytest.mark.parametrize(
    ("doi", "arxiv_id"),
    [
        ("10.48550/arxiv.2412.14374", "2412.14374"),
        ("10.48550/arXiv.hep-th/9711200", "hep-th/9711200"),
        ("10.1023/a:1026654312961", None),
        (None, None),
    ],
)
def test_arxiv_doi(doi: str | None, arxiv_id: str | None) -> None:
    assert is_arxiv_doi(doi) is (arxiv_id is not None)
    assert arxiv_id_from_doi(doi) == arxiv_id


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
