"""Template tags for the admin index: the count of notices awaiting review."""

from __future__ import annotations

from django import template

from curation.notices.selectors import unreviewed_alert_count

register = template.Library()


@register.simple_tag
def unreviewed_notice_alerts() -> int:
    """Return how many retractions and expressions of concern await review."""
    return unreviewed_alert_count()
