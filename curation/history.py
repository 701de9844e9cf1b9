"""History tracking for curated models: one helper so every app tracks the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pghistory
from django.apps import apps
from django.db import models
from django.db.models import Q

_M = TypeVar("_M", bound=type[models.Model])


def tracked(name: str, *trackers: pghistory.Tracker) -> Callable[[_M], _M]:
    """Track a model's changes; its events must carry a history context."""
    constraint = models.CheckConstraint(
        condition=Q(pgh_context__isnull=False), name=f"{name}_event_has_context"
    )
    chosen = trackers or (pghistory.InsertEvent(), pghistory.UpdateEvent(), pghistory.DeleteEvent())
    return pghistory.track(  # type: ignore[no-any-return]
        *chosen,
        obj_field=pghistory.ObjForeignKey(related_name="history", db_index=True),
        meta={"constraints": [constraint]},
    )


def event_model(name: str, app_label: str = "curation") -> Any:
    """Return the pghistory event model of a tracked model, by model name.

    Event models are made by pghistory at runtime, so they are looked up, not imported.
    """
    return apps.get_model(app_label, f"{name}Event")


def last_change(name: str, pk: Any, app_label: str = "curation") -> dict[str, Any]:
    """Return the history context (who, where from, why) and time of an object's latest change.

    Empty when the object has no history yet. What a refused stale write tells its author.
    """
    event = (
        event_model(name, app_label)
        .objects.filter(pgh_obj_id=pk)
        .select_related("pgh_context")
        .order_by("-pgh_id")
        .first()
    )
    if event is None or event.pgh_context is None:
        return {}
    return {**event.pgh_context.metadata, "at": event.pgh_created_at.isoformat()}
