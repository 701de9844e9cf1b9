"""import_records refuses a record whose dates fit the schema's pattern but are no real time.

The pattern admits 2026-02-30 and 99:99:99, and an offset can carry the last second of year
9999 past what UTC can hold. Such a record was once stored and then crashed the command (its
`as_of`), or crashed it mid-import (any other timestamp), and the rest of the folder was
skipped. Now it is refused with the file name and the JSON path, nothing of it is stored, and
the files after it still import.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from curation.models import Observation, Paper
from curation.record import input_checks
from curation.record.timestamps import parse_timestamp
from tests.records.test_import_limits import (
    BAD_ID,
    GOOD_ID,
    assert_refused_alone,
    edited,
    good_record,
    run_import,
)

pytestmark = pytest.mark.django_db


def at(*keys: str | int) -> Callable[[str], Callable[[dict[str, Any]], None]]:
    """Return an edit that puts a value at the path `keys` of a record."""

    def put(value: str) -> Callable[[dict[str, Any]], None]:
        def edit(document: dict[str, Any]) -> None:
            target = document
            for key in keys[:-1]:
                target = target[key]
            target[keys[-1]] = value

        return edit

    return put


def with_event(date: str) -> Callable[[dict[str, Any]], None]:
    def edit(document: dict[str, Any]) -> None:
        document["outbound"][0]["standing_notice"]["events"] = [
            {
                "date": date,
                "notice_doi": "10.1000/notice",
                "notice_url": None,
                "reasons": [],
                "source": "crossref",
                "source_record_id": None,
                "type": "retraction",
            }
        ]

    return edit


def with_measurement(observed_at: str) -> Callable[[dict[str, Any]], None]:
    def edit(document: dict[str, Any]) -> None:
        document["external_citation_measurements"] = [
            {"source": "crossref", "observed_at": observed_at, "count": 3}
        ]

    return edit


CASES = [
    pytest.param(
        at("as_of")("2026-02-30T10:00:00Z"), "$.as_of",
        "'2026-02-30T10:00:00Z' is not a real date and time (day is out of range for month)",
        id="as_of-february-30",
    ),
    pytest.param(
        at("paper", "submitted_at")("2026-13-45T99:99:99Z"), "$.paper.submitted_at",
        "'2026-13-45T99:99:99Z' is not a real date and time (month must be in 1..12)",
        id="submitted_at-month-13",
    ),
    pytest.param(
        at("paper", "last_updated")("9999-12-31T23:59:59-01:00"), "$.paper.last_updated",
        "'9999-12-31T23:59:59-01:00' is later than the last time UTC can hold (9999-12-31T23:59:59Z)",
        id="last_updated-past-9999",
    ),
    pytest.param(
        at("outbound", 0, "citation", "source_observed_at")("2026-04-31T00:00:00Z"),
        "$.outbound[0].citation.source_observed_at",
        "'2026-04-31T00:00:00Z' is not a real date and time (day is out of range for month)",
        id="source_observed_at-april-31",
    ),
    pytest.param(
        at("outbound", 1, "resolution", "observed_at")("0001-01-01T00:00:00+01:00"),
        "$.outbound[1].resolution.observed_at",
        "'0001-01-01T00:00:00+01:00' is earlier than the first time UTC can hold "
        "(0001-01-01T00:00:00Z)",
        id="observed_at-before-year-1",
    ),
    pytest.param(
        at("outbound", 0, "citation", "cited_work", "snapshot_observed_at")("2026-01-01T24:00:00Z"),
        "$.outbound[0].citation.cited_work.snapshot_observed_at",
        "'2026-01-01T24:00:00Z' is not a real date and time (hour must be in 0..23)",
        id="cited_work-hour-24",
    ),
    pytest.param(
        with_event("2026-02-30"), "$.outbound[0].standing_notice.events[0].date",
        "'2026-02-30' is not a real date (day is out of range for month)",
        id="event-date-february-30",
    ),
    pytest.param(
        with_measurement("2026-00-10T00:00:00Z"), "$.external_citation_measurements[0].observed_at",
        "'2026-00-10T00:00:00Z' is not a real date and time (month must be in 1..12)",
        id="measurement-month-0",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("edit", "where", "message"), CASES)
def test_a_record_with_an_impossible_date_is_refused_and_the_folder_goes_on(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None], where: str, message: str
) -> None:
    bad = tmp_path / "a_bad.json"
    bad.write_text(json.dumps(edited(edit)))

    assert_refused_alone(tmp_path, bad, f"{where}: {message}")


def test_the_last_and_first_times_utc_holds_are_real() -> None:
    assert parse_timestamp("9999-12-31T23:59:59Z").year == 9999
    assert parse_timestamp("0001-01-01T00:00:00-01:00").hour == 1


def test_a_date_the_checks_miss_still_costs_only_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should a timestamp slip past the checks, the import refuses the file, not the folder."""
    monkeypatch.setattr(input_checks, "check_dates", lambda document, name: None)
    bad = tmp_path / "a_bad.json"
    bad.write_text(json.dumps(edited(at("paper", "submitted_at")("2026-13-45T99:99:99Z"))))
    stored = tmp_path / "b_as_of.json"  # as_of is read only after the record is stored
    stored_record = good_record("2501.00003")
    stored_record["as_of"] = "2026-02-30T10:00:00Z"  # not part of the context digest
    stored.write_text(json.dumps(stored_record))
    (tmp_path / "c_good.json").write_text(json.dumps(good_record()))

    err, error = run_import(tmp_path)

    assert error is not None and "1 of 3 file(s) rejected" in str(error)
    assert f"rejected {bad}: $: cannot import: '2026-13-45T99:99:99Z' is not a real date" in err
    assert f"{stored}: stored, but its export was not compared: '2026-02-30T10:00:00Z'" in err
    assert not Paper.objects.filter(arxiv_id=BAD_ID).exists()
    assert Observation.objects.filter(paper__arxiv_id=GOOD_ID).count() == 2
