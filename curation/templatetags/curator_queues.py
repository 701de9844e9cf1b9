"""Template tags for the admin index: each curator work queue with its size."""

from __future__ import annotations

from django import template

from curation.selectors import QueueCount, work_queue_counts

register = template.Library()


@register.simple_tag
def work_queue_sizes() -> list[QueueCount]:
    """Return the counted work queues with their sizes, as the queue filter lists them."""
    return work_queue_counts()
