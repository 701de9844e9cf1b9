"""Per-observation history: each change with who, when, where from and why, and a
field-by-field diff against the version before it, in words a curator reads: papers and works
by identifier and title, evidence summarised (raw JSON one click away), revisions by number."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from curation.moments import moment_html
from curation.people import person, user_names
from curation.record.timestamps import text_for_people
from curation.resolution.candidates import candidates_from_evidence
from curation.selectors import cited_works_by_pks, observation_events, paper_titles

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
    if isinstance(value, datetime):
        return moment_html(value)  # as every time on curator screens
    if isinstance(value, dict | list):
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    else:
        text = text_for_people(str(value))  # a notice's "as of 2026-08-18T06:34:40.430872+00:00"
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


# Column names as a curator says them; foreign keys are shown as the paper or work they name.
LABELS = {
    "paper_id": "citing paper",
    "cited_paper_id": "linked paper",
    "cited_work_id": "linked work",
    "work_title": "described title",
    "work_year": "described year",
    "work_venue": "described venue",
    "work_doi": "described DOI",
    "work_arxiv_id": "described arXiv id",
    "work_pith_arxiv_id": "described pith arXiv id",
    "work_described": "described work",
    "imported_doi": "imported DOI",
    "imported_pith_arxiv_id": "imported pith arXiv id",
    "raw_text": "reference text",
    "reference_index": "reference number",
    "no_canonical_record": "no canonical record",
    "retired_at": "retired at",
    "status": "state",
    "resolver_source": "resolver source",
    "resolver_version": "resolver version",
    "state": "notice state",
    "events": "notice events",
    "source_receipts": "notice sources asked",
    "observation_text": "notice text",
}
_MODELS = {"Observation": "reference", "Resolution": "resolution", "StandingNotice": "notice"}
_JSON = {"evidence", "events", "source_receipts", "work_described"}


@dataclass
class FieldChange:
    """One field of one model, before and after (JSON also raw, for a <details>)."""

    model: str
    field: str
    before: str
    after: str
    raw_before: str = ""
    raw_after: str = ""


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
    same_revision: bool = False  # it changed the resolution or notice, not the reference row
    who: str = ""  # the actor by name (people.person)

    @property
    def actor(self) -> str:
        """Return the actor as history recorded it ("user:alice", "task:…")."""
        return str(self.metadata.get("actor") or "unknown")


def event_columns(event: Any) -> dict[str, Any]:
    """Return an event's values by column, without pghistory's bookkeeping."""
    return {
        f.attname: getattr(event, f.attname)
        for f in type(event)._meta.concrete_fields
        if f.attname not in _HIDDEN and f.name not in _HIDDEN
    }


def summarise_evidence(evidence: Any) -> str:
    """Return stored evidence in words: the decision, identifiers found, the best candidates."""
    if not evidence:
        return "none"
    if not isinstance(evidence, dict):
        return _shown(evidence)
    parts = []
    if evidence.get("decided_by") == "curator":
        before = evidence.get("previous") or {}
        parts.append(
            f"{person({'actor': evidence.get('actor')}, {}) if evidence.get('actor') else 'a curator'} decided: {str(evidence.get('action') or '').replace('_', ' ')}"
            f" (was {before.get('status') or 'unresolved'}"
            + (f", linked to arXiv:{before['cited_paper']}" if before.get("cited_paper") else "")
            + ")"
        )
    if evidence.get("decision"):
        parts.append(str(evidence["decision"]))
    found = evidence.get("identifiers")
    if isinstance(found, dict):
        named = [f"{k} {', '.join(map(str, v))}" for k, v in found.items() if v]
        if named:
            parts.append("identifiers found: " + "; ".join(named))
    ranked = candidates_from_evidence(evidence)
    if ranked:
        best = ", ".join(
            f"{c.identifier} ({c.score if c.score is not None else '—'})" for c in ranked[:3]
        )
        parts.append(f"{len(ranked)} candidate{'s' if len(ranked) != 1 else ''}, best {best}")
    if evidence.get("repairs"):
        parts.append(f"{len(evidence['repairs'])} repair(s) of the text")
    return "; ".join(parts) or "recorded (see the raw evidence)"


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) if value else ""


def field_changes(model: str, before: dict[str, Any], after: dict[str, Any]) -> list[FieldChange]:
    """Return the fields that differ between two versions of a row (bookkeeping left out)."""
    changes = []
    for name, value in after.items():
        if name in _QUIET or before.get(name) == value:
            continue
        old = before.get(name)
        if name == "evidence":
            change = FieldChange(model, name, summarise_evidence(old), summarise_evidence(value))
        else:
            change = FieldChange(model, name, _shown(old), _shown(value))
        if name in _JSON:
            change.raw_before, change.raw_after = _json(old), _json(value)
        changes.append(change)
    return changes


def name_fields(changes: list[Change]) -> None:
    """Show papers and works by identifier and title instead of row ids; label the fields."""
    papers = {f.before for c in changes for f in c.fields if f.field.endswith("paper_id")}
    papers |= {f.after for c in changes for f in c.fields if f.field.endswith("paper_id")}
    works = {f.before for c in changes for f in c.fields if f.field == "cited_work_id"}
    works |= {f.after for c in changes for f in c.fields if f.field == "cited_work_id"}
    paper_names = {
        str(pk): f"arXiv:{arxiv_id} — {title}" if title else f"arXiv:{arxiv_id}"
        for pk, arxiv_id, title in paper_titles(papers)
    }
    work_names = {
        str(w.pk): " ".join(
            x for x in (f"doi:{w.doi}" if w.doi else "", f"arXiv:{w.arxiv_id}" if w.arxiv_id else "",
                        f"— {w.title}" if w.title else "") if x
        ) or f"work {w.pk}"
        for w in cited_works_by_pks(works)
    }  # fmt: skip
    for change in changes:
        for f in change.fields:
            names = work_names if f.field == "cited_work_id" else paper_names
            if f.field.endswith("paper_id") or f.field == "cited_work_id":
                f.before, f.after = names.get(f.before, f.before), names.get(f.after, f.after)
            f.model = _MODELS.get(f.model, f.model)
            f.field = LABELS.get(f.field, f.field.replace("_", " "))


def observation_changes(observation_id: uuid.UUID) -> list[Change]:
    """Return the observation's changes, newest first, each with its field diffs."""
    events = observation_events(observation_id, TRACKED)
    events.sort(key=lambda pair: (pair[1].pgh_created_at, pair[0] != "Observation", pair[1].pgh_id))
    previous: dict[str, dict[str, Any]] = {}
    changes: list[Change] = []
    by_context: dict[Any, Change] = {}
    for name, event in events:
        columns = event_columns(event)
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
            change.fields += field_changes(name, previous.get(name, {}), columns)
        previous[name] = {} if event.pgh_label == "delete" else columns
        if name == "Observation":
            change.observation_event_id = event.pgh_id
            change.revision = columns.get("revision")
    # A change that did not touch the reference row itself happened at the revision then current.
    current = None
    for change in changes:
        if change.revision is None:
            change.revision = current
            change.same_revision = True
        current = change.revision
    name_fields(changes)
    names = user_names(c.metadata.get("user") for c in changes)
    for change in changes:
        change.who = person(change.metadata, names)
    changes.reverse()
    return changes
