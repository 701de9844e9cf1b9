"""The three timestamp formats of the record (SPEC §1 "Timestamps"), all UTC."""

from __future__ import annotations

from datetime import UTC, datetime


def parse_timestamp(value: str) -> datetime:
    """Parse an ISO-8601 timestamp with an offset (or Z) into an aware UTC datetime."""
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError(f"timestamp {value!r} has no UTC offset")
    return parsed.astimezone(UTC)


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
