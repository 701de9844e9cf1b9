"""The change log's rows: one change to one thing, named and described as curators read it.

A curator's decision writes the reference, its resolution and often its notice (three events
under one history context), and sometimes a new cited work beside them: one row, named by paper
and reference ("2412.14374 [12] Deep residual learning…"), with the fields it changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString

from curation.people import person, user_names
from curation.selectors import observations_with_papers, previous_versions

from .describe import best_text
from .history import Change, FieldChange, event_columns, field_changes, name_fields

MODELS = {
    "observation": "Observation",
    "resolution": "Resolution",
    "standingnotice": "StandingNotice",
    "citedwork": "CitedWork",
    "paper": "Paper",
    "measurement": "ExternalCitationMeasurement",
    "standingsource": "StandingSource",
}
# A reference's resolution and notice share its id: their events belong to its row.
_OF_OBSERVATION = {"observation", "resolution", "standingnotice"}
_PART = {
    "observation": "reference",
    "standingnotice": "notice",
    "citedwork": "cited work",
    "measurement": "citation count",
    "standingsource": "notice source",
}
# What a curator looks for first in a change.
_FIRST = {"state": 0, "linked paper": 1, "linked work": 2, "notice state": 3, "reference number": 4}
NAME_SHOWN = 70
FIELDS_SHOWN = 4
VALUE_SHOWN = 60


@dataclass
class LogEntry:
    """One history event, as the log reads it."""

    model: str
    event: Any

    @property
    def metadata(self) -> dict[str, Any]:
        """Return the event's context: actor, source, reason, task id."""
        context = self.event.pgh_context
        return context.metadata if context else {}

    @property
    def at(self) -> datetime:
        """Return when the event was written."""
        return self.event.pgh_created_at  # type: ignore[no-any-return]

    @property
    def subject(self) -> tuple[str, str]:
        """Return what the event changed: a reference (its observation id) or another row."""
        model = "observation" if self.model in _OF_OBSERVATION else self.model
        return model, str(self.event.pgh_obj_id)


@dataclass
class LogRow:
    """One change to one thing: every event one history context wrote for it, as one line."""

    at: datetime
    metadata: dict[str, Any]
    kind: str  # "observation" (a reference: its row, resolution and notice) or another model
    obj_id: str
    entries: list[LogEntry] = field(default_factory=list)
    beside: list[LogEntry] = field(default_factory=list)  # e.g. the cited work a link created
    name: str = ""  # "2412.14374 [12] Deep residual learning…"
    url: str = ""  # the reference's history page
    who: str = ""
    change: Change | None = None  # what changed, field by field

    @property
    def brief(self) -> list[FieldChange]:
        """Return the first few fields changed, each value cut short (the history has them all)."""
        return [
            FieldChange(f.model, f.field, _cut(f.before), _cut(f.after))
            for f in (self.change.fields if self.change else [])[:FIELDS_SHOWN]
        ]

    @property
    def more(self) -> int:
        """Return how many more fields changed than the row shows."""
        return max(len(self.change.fields) - FIELDS_SHOWN, 0) if self.change else 0

    @property
    def actions(self) -> str:
        """Return what happened to which part ("resolution update, notice insert")."""
        entries = self.entries + self.beside
        return ", ".join(f"{_PART.get(e.model, e.model)} {e.event.pgh_label}" for e in entries)


def _cut(value: str) -> str:
    # A <time> element (SafeString) is short already and must not be cut inside its markup.
    if isinstance(value, SafeString) or len(value) <= VALUE_SHOWN:
        return value
    return value[: VALUE_SHOWN - 1] + "…"


def folded(rows: list[LogRow]) -> list[LogRow]:
    """Fold what a decision wrote beside its one reference (a new cited work) into its row."""
    references: dict[Any, list[LogRow]] = {}
    for row in rows:
        if row.kind == "observation":
            references.setdefault(row.entries[0].event.pgh_context_id, []).append(row)
    kept = []
    for row in rows:
        owner = references.get(row.entries[0].event.pgh_context_id, [])
        if row.kind != "observation" and len(owner) == 1:
            owner[0].beside += row.entries  # its fields repeat the reference's "linked work"
        else:
            kept.append(row)
    return kept


def describe(rows: list[LogRow]) -> None:
    """Name each row's subject and person, and work out what its events changed."""
    names = user_names(r.metadata.get("user") for r in rows)
    previous = _previous_versions([e for r in rows for e in r.entries])
    changes = []
    for row in rows:
        row.who = person(row.metadata, names)
        change = Change(row.at, None, row.metadata)
        for entry in sorted(row.entries, key=lambda e: (e.model != "observation", e.event.pgh_id)):
            if entry.event.pgh_label == "delete":
                continue
            before = previous.get((entry.model, entry.event.pgh_id), {})
            change.fields += field_changes(MODELS[entry.model], before, event_columns(entry.event))
        row.change = change
        changes.append(change)
    name_fields(changes)
    for change in changes:
        change.fields.sort(key=lambda f: _FIRST.get(f.field, len(_FIRST)))
    _name_subjects(rows)


def _previous_versions(entries: list[LogEntry]) -> dict[tuple[str, int], dict[str, Any]]:
    """Return the version of its row before each event (none for an insert): two queries a model."""
    found: dict[tuple[str, int], dict[str, Any]] = {}
    by_model: dict[str, list[int]] = {}
    for entry in entries:
        if entry.event.pgh_label == "update":
            by_model.setdefault(entry.model, []).append(entry.event.pgh_id)
    for name, ids in by_model.items():
        for pgh_id, version in previous_versions(MODELS[name], ids).items():
            found[(name, pgh_id)] = event_columns(version)
    return found


def _name_subjects(rows: list[LogRow]) -> None:
    """Name references by paper, number and title ("2412.14374 [12] Deep residual…")."""
    ids = {r.obj_id for r in rows if r.kind == "observation"}
    references = observations_with_papers(ids)
    for row in rows:
        if row.kind != "observation":
            row.name = f"{_PART.get(row.kind, row.kind)} {row.obj_id}"
            continue
        row.url = reverse("admin:curation_observation_history", args=[row.obj_id])
        found = references.get(row.obj_id)
        if found is None:
            row.name = f"deleted reference {row.obj_id[:8]}"
            continue
        title = found.work_title or best_text(found, NAME_SHOWN)[0]
        if len(title) > NAME_SHOWN:
            title = title[: NAME_SHOWN - 1] + "…"
        row.name = f"{found.paper.arxiv_id} [{found.reference_index}] {title}"
