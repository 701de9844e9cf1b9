"""What a curator sees after a refused save: their values beside the current ones, and a form
that saves again only with an explicit choice (apply mine / keep current) on the revision shown.

Nothing is merged: "apply mine" applies exactly the values in the "yours" column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django import forms

from curation.models import Observation

from .forms import seen_pairs

# Fields that are posted but are not the author's values.
_NOT_VALUES = {"csrfmiddlewaretoken", "action", "revision", "conflict", "choice", "targets"}
_CORRECTED = (
    ("work_title", "Title"),
    ("work_year", "Year"),
    ("work_venue", "Venue"),
    ("reference_index", "Reference number"),
)


@dataclass
class Conflict:
    """The refused decision, ready to be decided again on the current revision."""

    action: str
    label: str
    revision: int
    rows: list[tuple[str, str, str]]
    hidden: list[tuple[str, str]]
    errors: list[str] = field(default_factory=list)


def _status(obj: Observation) -> str:
    resolution = getattr(obj, "resolution", None)
    return resolution.status if resolution else "unresolved"


def _linked(obj: Observation) -> str:
    if obj.cited_paper_id is not None and obj.cited_paper is not None:
        return f"arXiv:{obj.cited_paper.arxiv_id}"
    return (
        f"doi:{obj.work_doi}" if obj.work_doi and _status(obj).startswith("verified") else "nothing"
    )


def _text(value: Any) -> str:
    return "—" if value in (None, "") else str(value)


def _rows(
    action: str, label: str, typed: dict[str, str], obj: Observation
) -> list[tuple[str, str, str]]:
    """Return (what, yours, current) rows: what the author asked for beside what stands now."""
    if action == "correct":
        return [(name, _text(typed.get(key)), _text(getattr(obj, key))) for key, name in _CORRECTED]
    if action in ("link", "accept_candidate"):
        return [
            ("Link", _text(typed.get("identifier")), _linked(obj)),
            ("State", "verified_exact", _status(obj)),
        ]
    if action == "set_state":
        return [
            ("State", _text(typed.get("status")), _status(obj)),
            ("Link", "nothing", _linked(obj)),
        ]
    if action == "split":
        return [("Reference text", _text(typed.get("parts")), _text(obj.raw_text))]
    if action == "revert":
        wanted = typed.get("to_revision") or f"of history entry {typed.get('event_id')}"
        return [("Version", f"revision {wanted}", f"revision {obj.revision}")]
    return [
        ("Decision", label, f"{_status(obj)}, linked to {_linked(obj)}"),
        (
            "Pinned / retired",
            "",
            f"{'pinned' if obj.pinned else 'not pinned'} / {'retired' if obj.retired_at else 'live'}",
        ),
    ]


def conflict_for(
    action: str, label: str, bound: forms.Form, obj: Observation, same_text: Any
) -> Conflict:
    """Return the conflict panel for a decision refused because `obj` moved on."""
    posted = bound.data
    typed = {k: str(v) for k, v in posted.items() if k not in _NOT_VALUES}
    hidden = list(typed.items())
    if action == "apply_same_text":
        hidden.append(("targets", " ".join(seen_pairs(same_text))))
    errors = [str(e) for errors in bound.errors.values() for e in errors] if bound.is_bound else []
    rows = [*_rows(action, label, typed, obj), ("Reason", _text(typed.get("reason")), "")]
    return Conflict(action, label, obj.revision, rows, hidden, errors)
