"""The one way curator screens write a time: "2026-12-03 18:15 UTC" in a <time> element
(the format of every page, `curation.record.timestamps.FOR_PEOPLE`).

History headings, recent changes, the conflict banners, history values, the change log, the
admin index and the notice review all use it, so a curator compares times at a glance.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString

from curation.record.timestamps import FOR_PEOPLE as FORMAT


def _instant(value: Any) -> datetime | None:
    """Return `value` (a datetime or an ISO 8601 text, as history contexts keep it) in UTC."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    # A naive time is read as UTC: the database and the settings keep every time in UTC.
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def moment_text(value: Any) -> str:
    """Return the time as curators read it, to the minute ("2026-12-03 18:15 UTC")."""
    instant = _instant(value)
    return instant.strftime(FORMAT) if instant else str(value or "—")


def moment_html(value: Any) -> SafeString:
    """Return the time in a <time> element: the minute shown, the exact instant in its attributes."""
    instant = _instant(value)
    if instant is None:
        return format_html("{}", value or "—")
    exact = instant.isoformat().replace("+00:00", "Z")
    # The seconds are in the tooltip: two changes in one minute stay told apart.
    return format_html(
        '<time datetime="{}" title="{}">{}</time>', exact, exact, instant.strftime(FORMAT)
    )
