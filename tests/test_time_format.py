"""One time format everywhere a person reads a time (issue 41 item 4): reader pages, curator
screens, the admin's own lists and notice texts all write "2026-08-19 06:32 UTC"."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import formats, timezone

from curation.admin.history import _shown
from curation.moments import moment_text
from curation.record.timestamps import for_people, text_for_people

INSTANT = datetime(2026, 8, 19, 6, 32, 11, 430872, tzinfo=UTC)
SHOWN = "2026-08-19 06:32 UTC"


def test_every_writer_of_a_time_writes_the_same_text() -> None:
    assert for_people("2026-08-19T06:32:11.430872Z") == SHOWN
    assert for_people("2026-08-19T06:32:11.430872+00:00") == SHOWN
    assert moment_text(INSTANT) == SHOWN
    # What Django's admin writes for a DateTimeField it shows itself (the ingestion list).
    assert formats.date_format(timezone.localtime(INSTANT), "DATETIME_FORMAT") == SHOWN
    assert formats.localize(timezone.localtime(INSTANT)) == SHOWN


def test_dates_are_written_as_iso_dates_everywhere() -> None:
    assert for_people("2023-08-16") == "2023-08-16"
    assert formats.date_format(INSTANT.date(), "DATE_FORMAT") == "2026-08-19"


def test_times_inside_a_notice_text_are_written_for_people() -> None:
    text = "No event found in the named queried sources as of 2026-08-19T06:32:11.430872+00:00."
    assert text_for_people(text) == f"No event found in the named queried sources as of {SHOWN}."
    assert SHOWN in _shown(text)  # a notice text in a reference's history on curator screens
