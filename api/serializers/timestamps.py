"""The API's one time format (DRF's): ISO 8601, UTC written as Z."""

from __future__ import annotations

from datetime import datetime


def timestamp(value: datetime | None) -> str | None:
    """Format a time as DRF does: ISO 8601, UTC as Z."""
    if value is None:
        return None
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text
