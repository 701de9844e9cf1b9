"""The three timestamp formats of the record (SPEC §1 "Timestamps"), all UTC."""

from __future__ import annotations

import re
from datetime import MAXYEAR, UTC, date, datetime


def parse_timestamp(value: str) -> datetime:
    """Parse an ISO-8601 timestamp with an offset (or Z) into an aware UTC datetime.

    Raise ValueError naming the value for one that is no real time (2026-02-30, 25:00) or
    that its offset carries outside the years 1 to 9999 in UTC (9999-12-31T23:59:59-01:00).
    """
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"{value!r} is not a real date and time ({exc})") from None
    if parsed.tzinfo is None:
        raise ValueError(f"timestamp {value!r} has no UTC offset")
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        edge = "later than the last" if parsed.year == MAXYEAR else "earlier than the first"
        limit = "9999-12-31T23:59:59Z" if parsed.year == MAXYEAR else "0001-01-01T00:00:00Z"
        raise ValueError(f"{value!r} is {edge} time UTC can hold ({limit})") from None


def parse_date(value: str) -> date:
    """Parse a YYYY-MM-DD date; raise ValueError naming the value for one that is no real day."""
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"{value!r} is not a real date ({exc})") from None


def format_seconds(value: datetime | None) -> str | None:
    """Format as 2024-12-18T22:15:11Z (as_of, paper submission and update times)."""
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def format_micro_z(value: datetime | None) -> str | None:
    """Format as 2026-08-11T12:21:38.800001Z (snapshot, source and resolution times)."""
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def format_micro_offset(value: datetime | None) -> str | None:
    """Format as 2026-08-19T06:32:44.657259+00:00 (receipts, standing sources, notices lane)."""
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


def truncate_to_minute(value: datetime) -> datetime:
    """Return the UTC time truncated to the minute (a record's as_of)."""
    return value.astimezone(UTC).replace(second=0, microsecond=0)


# Every time a person reads, on every page and in the admin's own lists (citerec/formats).
FOR_PEOPLE = "%Y-%m-%d %H:%M UTC"
_ISO_IN_TEXT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")


def for_people(value: str | None) -> str | None:
    """Return a record timestamp (any of its formats, or a YYYY-MM-DD date) as people read it.

    One style for every page, reader and curator alike: "2026-08-19 06:32 UTC" (no seconds,
    no fraction, `FOR_PEOPLE`), dates as "2024-02-14". The machine form stays in the JSON and
    in <time datetime>.
    """
    if not value:
        return None
    if len(value) == 10:  # an event date
        return parse_date(value).isoformat()
    return parse_timestamp(value.replace("Z", "+00:00")).astimezone(UTC).strftime(FOR_PEOPLE)


def text_for_people(text: str) -> str:
    """Return text with the record timestamps inside it written for people."""
    return _ISO_IN_TEXT.sub(lambda m: for_people(m.group(0)) or m.group(0), text)
