"""Template tags for the curator screens: the work queues with their sizes, and screen names."""

from __future__ import annotations

from typing import Any

from django import template

from curation.admin.screens import screen_name
from curation.selectors import QueueCount, work_queue, work_queue_counts

register = template.Library()


@register.simple_tag
def work_queue_sizes() -> list[QueueCount]:
    """Return the counted work queues with their sizes, as the queue filter lists them."""
    return work_queue_counts()


@register.filter
def queue_of(key: Any) -> Any:
    """Return the work queue of a `queue` parameter (the default queue when there is none)."""
    return work_queue(str(key) if key else None)


@register.filter
def screen_title(model: dict[str, Any]) -> str:
    """Return an app list entry's name: the curator screen's own name, else Django's."""
    return screen_name(model.get("model"), str(model.get("name", "")))
