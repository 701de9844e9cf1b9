"""Template filters for reader-facing pages: who made a change, without staff names."""

from __future__ import annotations

from typing import Any

from django import template

from curation.people import public_person

register = template.Library()


@register.filter
def public_who(metadata: Any) -> str:
    """Return who made a change as reader-facing pages say it ("a curator", "resolver (task)")."""
    return public_person(metadata or {})
