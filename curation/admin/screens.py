"""The names of the curator screens, one each, used by titles, breadcrumbs, the index and links.

Django would say "Select observation to change" and "Observations"; curators call the list of
references to decide the work queue, and the notice list the notices to review.
"""

from __future__ import annotations

from typing import Any

WORK_QUEUE = "Work queue"
NOTICES_TO_REVIEW = "Notices to review"
GROUP_QUEUE = "Groups to decide"
_BY_MODEL = {
    "curation.observation": WORK_QUEUE,
    "notices.noticereview": NOTICES_TO_REVIEW,
    "curation.referencegroup": GROUP_QUEUE,
}


def screen_name(model: Any, default: str = "") -> str:
    """Return the screen's name for a model class (or its `app_label.model_name`), else `default`."""
    meta = getattr(model, "_meta", None)
    return _BY_MODEL.get(meta.label_lower if meta is not None else str(model), default)
