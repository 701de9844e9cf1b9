"""Per-observation history: each change with who, when, where from and why, and a
field-by-field diff against the version before it."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from curation.history import event_model

# Bookkeeping columns: shown nowhere in a diff (the revision is in the heading).
_HIDDEN = {
    "pgh_id",
    "pgh_created_at",
    "pgh_label",
    "pgh_obj_id",
    "pgh_context_id",
    "pgh_obj",
    "pgh_context",
}
_QUIET = {"revision", "changed_at", "observed_at", "observation_id", "id"}
TRACKED = ("Observation", "Resolution", "StandingNotice")
_SHORT = 240


def _shown(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, dict | list):
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    else:
        text = str(value)
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


@dataclass
class FieldChange:
    """One field of one model, before and after."""

    model: str
    field: str
    before: str
    after: str


@dataclass
class Change:
    """One audited change (one history context) as it touched this observation."""

    at: datetime
    context_id: uuid.UUID | None
    metadata: dict[str, Any]
    labels: list[str] = field(default_factory=list)
    fields: list[FieldChange] = field(default_factory=list)
    observation_event_id: int | None = None
    revision: int | None = None

    @property
    def actor(self) -> str:
        """Return who made the change."""
        return str(self.metadata.get("actor") or "unknown")


def _columns(event: Any) -> dict[str, Any]:
    return {
        f.attname: getattr(event, f.attname)
        for f in type(event)._meta.concrete_fields
        if f.attname not in _HIDDEN and f.name not in _HIDDEN
    }


def _diff(model: str, before: dict[str, Any], after: dict[str, Any]) -> list[FieldChange]:
    return [
        FieldChange(model, name, _shown(before.get(name)), _shown(value))
        for name, value in after.items()
        if name not in _QUIET and before.get(name) != value
    ]


def observation_changes(observation_id: uuid.UUID) -> list[Change]:
    """Return the observation's changes, newest first, each with its field diffs."""
    events = [
        (name, event)
        for name in TRACKED
        for event in event_model(name)
        .objects.filter(pgh_obj_id=observation_id)
        .select_related("pgh_context")
    ]
    events.sort(key=lambda pair: (pair[1].pgh_created_at, pair[0] != "Observation", pair[1].pgh_id))
    previous: dict[str, dict[str, Any]] = {}
    changes: list[Change] = []
    by_context: dict[Any, Change] = {}
    for name, event in events:
        columns = _columns(event)
        key = event.pgh_context_id or f"{name}:{event.pgh_id}"
        change = by_context.get(key)
        if change is None:
            context = event.pgh_context
            change = Change(
                event.pgh_created_at, event.pgh_context_id, context.metadata if context else {}
            )
            by_context[key] = change
            changes.append(change)
        change.labels.append(f"{name.lower()} {event.pgh_label}")
        if event.pgh_label == "delete":
            change.fields.append(FieldChange(name, "(row)", "present", "deleted"))
        else:
            change.fields += _diff(name, previous.get(name, {}), columns)
        previous[name] = {} if event.pgh_label == "delete" else columns
        if name == "Observation":
            change.observation_event_id = event.pgh_id
            change.revision = columns.get("revision")
    changes.reverse()
    return changes
