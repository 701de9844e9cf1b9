"""Template tags for the admin index: the notices awaiting review, counted as the queue lists them."""

from __future__ import annotations

from django import template

from curation.notices.selectors import QueueCounts, review_queue_counts

register = template.Library()


@register.simple_tag
def review_queue_size() -> QueueCounts:
    """Return how many reviews the queue lists, and how many are retractions or concerns."""
    return review_queue_counts()
