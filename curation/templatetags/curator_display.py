"""Template filters for curator screens: one time format (`when`) and people by name (`who`)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from curation.admin.log import LogRow, recent_decisions
from curation.moments import moment_html
from curation.people import person

register = template.Library()


@register.filter
def when(value: Any) -> SafeString:
    """Render a time as every curator screen does: <time datetime=…>2026-12-03 18:15 UTC</time>."""
    return moment_html(value)


@register.filter
def who(metadata: Any) -> str:
    """Return who made a change (a history context's metadata) by name."""
    return person(metadata or {})


@register.simple_tag
def recent_curator_decisions(limit: int = 10) -> list[LogRow]:
    """Return the latest changes people made, a row per reference (the admin index's sidebar)."""
    return recent_decisions(limit)
