"""Tests for turning Crossref works and notices into events (every known trap)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import pytest

from curation.notice_events import EventType, ReportedEvent
from curation.notices.parsers.crossref_updates import (
    crossref_events,
    crossref_notices_params,
    crossref_query_doi,
    crossref_work_path,
    dedupe_events,
    events_from_notices,
    events_from_work,
)

Load = Callable[[str], Any]
MICPRO = "10.1016/j.micpro.2020.103053"
EOC_NOTICE = "10.1016/j.micpro.2021.104304"
RETRACTION_NOTICE = "10.1016/j.micpro.2024.105024"
COMMA = "10.1002/(sici)1097-0258(19980430)17:8<857::aid-sim777>3.0.co,2-e"


def _summary(events: list[ReportedEvent]) -> list[tuple[Any, ...]]:
    return sorted(
        (e.notice_doi, e.type.value, e.date, e.source_record_id, e.source) for e in events
    )


def test_work_updated_by_publisher_and_retraction_watch_entries(load_json: Load) -> None:
    events = events_from_work(load_json("crossref_work_micpro_retracted.json"))
    # Each notice is listed by the publisher (upper-case DOI) and by Retraction
    # Watch (with its record id); each becomes one event.
    assert _summary(events) == [
        (EOC_NOTICE, "expression_of_concern", date(2021, 6, 25), "72867", "crossref"),
        (RETRACTION_NOTICE, "retraction", date(2024, 2, 14), "72853", "crossref"),
    ]
    assert {e.work_doi for e in events} == {MICPRO}


def test_work_message_without_envelope_and_explicit_doi(load_json: Load) -> None:
    message = load_json("crossref_work_micpro_retracted.json")["message"]
    assert _summary(events_from_work(message, work_doi=MICPRO.upper())) == _summary(
        events_from_work(message)
    )


def test_notices_listing_gives_events_about_the_queried_doi_only(load_json: Load) -> None:
    events = events_from_notices(load_json("crossref_notices_micpro.json"), work_doi=MICPRO)
    # The EoC notice also amends 10.1016/j.micpro.2020.103099 and the retraction
    # notice is itself corrected: neither of those is about the queried work.
    assert _summary(events) == [
        (EOC_NOTICE, "expression_of_concern", date(2021, 6, 25), None, "crossref"),
        (RETRACTION_NOTICE, "retraction", date(2024, 2, 14), None, "crossref"),
    ]


def test_notices_listing_about_the_other_amended_work(load_json: Load) -> None:
    listing = load_json("crossref_notices_micpro.json")
    events = events_from_notices(listing, work_doi="10.1016/J.MICPRO.2020.103099")
    assert _summary(events) == [
        (EOC_NOTICE, "expression_of_concern", date(2021, 6, 25), None, "crossref")
    ]


def test_notice_with_update_to_and_updated_by_is_not_itself_retracted(load_json: Load) -> None:
    notice = load_json("crossref_work_notice_itself.json")
    events = events_from_work(notice)
    # Its update-to is about the original work; its self-pointing updated-by is
    # an echo. Only the genuine correction of the notice remains.
    assert _summary(events) == [
        ("10.1016/j.micpro.2024.105100", "correction", date(2024, 3, 1), None, "crossref")
    ]
    assert all(e.type is not EventType.RETRACTION for e in events)
    assert all(e.work_doi == RETRACTION_NOTICE for e in events)


def test_notice_listing_items_updated_by_does_not_leak(load_json: Load) -> None:
    listing = load_json("crossref_notices_micpro.json")
    assert events_from_notices(listing, work_doi=RETRACTION_NOTICE) == []


def test_same_notice_under_two_types_is_one_event(load_json: Load) -> None:
    events = events_from_work(load_json("crossref_work_two_types.json"))
    # erratum + correction (publisher) + retraction (Retraction Watch) for one
    # notice DOI: one event, the most severe type, the record id kept; the
    # new_version update stays as `other`.
    assert _summary(events) == [
        ("10.1007/s11042-022-12345-7", "other", date(2022, 4, 1), None, "crossref"),
        ("10.1007/s11042-023-99999-1", "retraction", date(2023, 1, 10), "45001", "crossref"),
    ]


def test_same_notice_through_both_paths_is_one_event(load_json: Load) -> None:
    events = crossref_events(
        work_doi=MICPRO,
        work_message=load_json("crossref_work_micpro_retracted.json"),
        notices=load_json("crossref_notices_micpro.json"),
    )
    assert _summary(events) == [
        (EOC_NOTICE, "expression_of_concern", date(2021, 6, 25), "72867", "crossref"),
        (RETRACTION_NOTICE, "retraction", date(2024, 2, 14), "72853", "crossref"),
    ]
    assert [e.date for e in events] == sorted(e.date for e in events if e.date)


def _crossref_event(**overrides: Any) -> ReportedEvent:
    fields: dict[str, Any] = {
        "type": EventType.CORRECTION,
        "source": "crossref",
        "work_doi": MICPRO,
        "notice_doi": "10.1/n",
    }
    fields.update(overrides)
    return ReportedEvent(**fields)


@pytest.mark.parametrize(
    ("types", "kept"),
    [
        (["correction", "correction"], "correction"),
        (["other", "correction"], "correction"),
        (["correction", "other"], "correction"),
        (["correction", "retraction"], "retraction"),
        (["expression_of_concern", "correction"], "expression_of_concern"),
        (["reinstatement", "other"], "reinstatement"),
        (["partial_retraction", "retraction"], "retraction"),
    ],
)
def test_dedupe_rule(types: list[str], kept: str) -> None:
    [event] = dedupe_events([_crossref_event(type=t) for t in types])
    assert event.type.value == kept


def test_dedupe_fills_missing_fields_from_the_duplicates() -> None:
    dated = _crossref_event(type="correction", date=date(2023, 1, 9))
    recorded = _crossref_event(type="retraction", source_record_id="45001")
    [event] = dedupe_events([dated, recorded])
    assert (event.type, event.date, event.source_record_id) == (
        EventType.RETRACTION,
        date(2023, 1, 9),
        "45001",
    )


def test_dedupe_keeps_events_of_other_works_sources_and_without_notice_doi() -> None:
    events = [
        _crossref_event(),
        _crossref_event(work_doi="10.1/other"),
        _crossref_event(source="retraction_watch"),
        _crossref_event(notice_doi=None),
        _crossref_event(notice_doi=None),
    ]
    assert len(dedupe_events(events)) == 5


def test_comma_doi_updated_in_place(load_json: Load) -> None:
    work = load_json("crossref_work_comma_doi.json")
    events = events_from_work(work)
    # The work updates itself (an in-place notice), so its own updated-by is real.
    assert _summary(events) == [(COMMA, "retraction", date(1999, 1, 15), None, "crossref")]
    listing = load_json("crossref_notices_comma_doi.json")
    assert _summary(events_from_notices(listing, work_doi=COMMA.upper())) == [
        ("10.1002/sim.9999", "retraction", date(1999, 2, 1), None, "crossref")
    ]


def test_comma_doi_cannot_be_asked_through_the_updates_filter() -> None:
    assert crossref_notices_params(COMMA) is None
    assert crossref_notices_params(MICPRO) == {"filter": f"updates:{MICPRO}"}


def test_work_path_escapes_the_doi() -> None:
    assert crossref_work_path(MICPRO) == f"/works/{MICPRO}"
    assert crossref_work_path(COMMA) == (
        "/works/10.1002/%28sici%291097-0258%2819980430%2917%3A8%3C857%3A%3Aaid-sim777%3E3.0.co%2C2-e"
    )


@pytest.mark.parametrize(
    ("work_doi", "published_doi", "expected"),
    [
        (MICPRO, None, MICPRO),
        ("https://doi.org/10.1016/J.MICPRO.2020.103053", None, MICPRO),
        ("10.48550/arXiv.hep-th/9711200", "10.1023/A:1026654312961", "10.1023/a:1026654312961"),
        ("10.48550/arXiv.2412.14374", None, None),
        (None, "10.1023/A:1026654312961", "10.1023/a:1026654312961"),
        (None, "10.48550/arXiv.2412.14374", None),
        (None, None, None),
        ("not a doi", None, None),
    ],
)
def test_crossref_query_doi(
    work_doi: str | None, published_doi: str | None, expected: str | None
) -> None:
    assert crossref_query_doi(work_doi, published_doi) == expected


@pytest.mark.parametrize(
    "updated",
    [
        {"date-parts": [[2021]]},
        {"date-parts": [[None]]},
        {"date-parts": []},
        {},
        None,
        "2021-06-25",
    ],
)
def test_partial_or_odd_update_dates_are_none(updated: Any) -> None:
    work = {"DOI": MICPRO, "updated-by": [{"DOI": "10.1/n", "type": "erratum", "updated": updated}]}
    [event] = events_from_work(work)
    assert event.date is None and event.type is EventType.CORRECTION


def test_date_time_is_used_when_date_parts_are_partial() -> None:
    updated = {"date-parts": [[2021, 6]], "date-time": "2021-06-25T10:00:00Z"}
    work = {
        "DOI": MICPRO,
        "updated-by": [{"DOI": "10.1/n", "type": "retraction", "updated": updated}],
    }
    [event] = events_from_work(work)
    assert event.date == date(2021, 6, 25)


@pytest.mark.parametrize(
    "message",
    [
        {},
        {"DOI": MICPRO},
        {"DOI": MICPRO, "updated-by": None},
        {"DOI": MICPRO, "updated-by": ["junk", 3]},
        {"DOI": "junk", "updated-by": [{"DOI": "10.1/n", "type": "retraction"}]},
    ],
)
def test_works_without_updates_give_no_events(message: dict[str, Any]) -> None:
    assert events_from_work(message) == []


def test_empty_listing_and_bare_item_list(load_json: Load) -> None:
    assert (
        events_from_notices(
            {"status": "ok", "message-type": "work-list", "message": {"items": []}}, work_doi=MICPRO
        )
        == []
    )
    items = load_json("crossref_notices_micpro.json")["message"]["items"]
    assert len(events_from_notices(items, work_doi=MICPRO)) == 2


def test_arxiv_doi_work_gets_its_arxiv_id() -> None:
    work = {
        "DOI": "10.48550/arXiv.2412.14374",
        "updated-by": [{"DOI": "10.1/n", "type": "withdrawal"}],
    }
    [event] = events_from_work(work)
    assert event.work_arxiv_id == "2412.14374"
