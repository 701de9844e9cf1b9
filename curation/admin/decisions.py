"""One decision on one observation: validate its form, then call the service that writes it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms

from curation.audit import Actor
from curation.history import event_model
from curation.models import Observation
from curation.resolution.services.proposals import accept_proposal
from curation.services.observation_groups import observation_split, observations_apply_same_text
from curation.services.observations import (
    CurationError,
    observation_correct,
    observation_link_arxiv,
    observation_link_doi,
    observation_mark_no_canonical_record,
    observation_retire,
    observation_revert,
    observation_set_state,
    observation_unpin,
)

from . import forms as f

Handler = Callable[[Observation, Any, Actor], str]


def link(
    observation: Observation,
    identifier: tuple[str, str],
    revision: int,
    actor: Actor,
    reason: str,
) -> str:
    """Link to an arXiv paper or a DOI record after checking that it is known."""
    scheme, value = identifier
    if scheme == "arxiv":
        observation_link_arxiv(
            observation=observation,
            arxiv_id=value,
            expected_revision=revision,
            actor=actor,
            reason=reason,
        )
        return f"Linked to arXiv:{value}."
    observation_link_doi(
        observation=observation, doi=value, expected_revision=revision, actor=actor, reason=reason
    )
    return f"Linked to doi:{value}."


def _common(form: f.DecisionForm) -> dict[str, Any]:
    return {
        "expected_revision": form.cleaned_data["revision"],
        "reason": form.cleaned_data["reason"],
    }


def _link(o: Observation, form: Any, actor: Actor) -> str:
    d = form.cleaned_data
    return link(o, d["identifier"], d["revision"], actor, d["reason"])


def _state(o: Observation, form: Any, actor: Actor) -> str:
    observation_set_state(
        observation=o, status=form.cleaned_data["status"], actor=actor, **_common(form)
    )
    return f"State set to {form.cleaned_data['status']}."


def _no_record(o: Observation, form: Any, actor: Actor) -> str:
    observation_mark_no_canonical_record(observation=o, actor=actor, **_common(form))
    return "Marked as having no canonical record: it left the work queue."


def _correct(o: Observation, form: Any, actor: Actor) -> str:
    changes = form.changes(o)
    if not changes:
        raise CurationError("nothing to correct: every field is as it was")
    observation_correct(observation=o, changes=changes, actor=actor, **_common(form))
    return "Corrected " + ", ".join(sorted(changes)) + "."


def _retire(o: Observation, form: Any, actor: Actor) -> str:
    observation_retire(observation=o, actor=actor, **_common(form))
    return "Retired: out of the record, kept in the history (revert to restore)."


def _unpin(o: Observation, form: Any, actor: Actor) -> str:
    observation_unpin(observation=o, actor=actor, **_common(form))
    return "Unpinned: the resolver may change it again."


def _accept_proposal(o: Observation, form: Any, actor: Actor) -> str:
    after = accept_proposal(observation=o, actor=actor, **_common(form))
    status = after.resolution.status if hasattr(after, "resolution") else "unresolved"
    return f"Accepted the resolver's verdict ({status}); the observation is unpinned."


def _same_text(o: Observation, form: Any, actor: Actor) -> str:
    outcome = observations_apply_same_text(
        observation=o, target_revisions=form.cleaned_data["targets"], actor=actor, **_common(form)
    )
    count = outcome.done
    text = f"Applied this decision to {count} other observation{'s' if count != 1 else ''} with the same text."
    if outcome.skipped:
        text += f" Skipped {len(outcome.skipped)}: " + "; ".join(outcome.skipped)
    return text


def _split(o: Observation, form: Any, actor: Actor) -> str:
    parts = observation_split(
        observation=o, parts=form.cleaned_data["parts"], actor=actor, **_common(form)
    )
    return f"Split into {len(parts)} references; the original is retired."


def _revert(o: Observation, form: Any, actor: Actor) -> str:
    events = event_model("Observation").objects.filter(pgh_obj_id=o.pk).order_by("-pgh_id")
    wanted = form.cleaned_data.get("to_revision")
    if wanted is not None:
        event = events.filter(revision=wanted).first()
        if event is None:
            raise CurationError(f"revision {wanted} is not a revision of this reference")
    else:
        event = events.filter(pgh_id=form.cleaned_data["event_id"]).first()
        if event is None:
            raise CurationError("that history entry is not a version of this reference")
    after = observation_revert(observation=o, event_id=event.pgh_id, actor=actor, **_common(form))
    return f"Reverted to revision {event.revision}; this is revision {after.revision}."


@dataclass(frozen=True)
class Decision:
    """A decision the observation page offers: its form and its handler."""

    form: type[forms.Form]
    handle: Handler
    label: str


DECISIONS: dict[str, Decision] = {
    "accept_candidate": Decision(f.AcceptCandidateForm, _link, "Accept candidate"),
    "link": Decision(f.LinkForm, _link, "Link"),
    "set_state": Decision(f.StateForm, _state, "Set state"),
    "no_canonical_record": Decision(f.DecisionForm, _no_record, "No canonical record"),
    "correct": Decision(f.CorrectForm, _correct, "Save corrections"),
    "retire": Decision(f.DecisionForm, _retire, "Retire as junk"),
    "unpin": Decision(f.DecisionForm, _unpin, "Unpin"),
    "accept_proposal": Decision(f.DecisionForm, _accept_proposal, "Accept the resolver's verdict"),
    "apply_same_text": Decision(f.SameTextForm, _same_text, "Apply to all with the same text"),
    "split": Decision(f.SplitForm, _split, "Split"),
    "revert": Decision(f.RevertForm, _revert, "Revert to this revision"),
}
