"""One decision on one observation: validate its form, then call the service that writes it.

Each handler returns what it did in words and the observation as it left it (the revision the
success message's undo goes back from); decisions that change several references offer no
one-click undo.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.conf import settings

from curation.audit import Actor
from curation.ingestion.services.fetched_links import (
    is_catalogued,
    observation_fetch_and_link,
    source_of,
)
from curation.models import Observation
from curation.selectors import observation_version
from curation.services.observation_groups import observation_split, observations_apply_same_text
from curation.services.observations import (
    CurationError,
    observation_correct,
    observation_link_identifier,
    observation_mark_no_canonical_record,
    observation_retire,
    observation_revert,
    observation_revert_to_revision,
    observation_set_state,
    observation_undo,
    observation_unpin,
)
from curation.services.proposals import accept_proposal

from . import forms as f
from .accepting import accept_target


@dataclass(frozen=True)
class Done:
    """What a saved decision did, and the observation as it left it (None: several changed)."""

    message: str
    after: Observation | None


Handler = Callable[[Observation, Any, Actor], Done]


class NotCatalogued(CurationError):
    """The work to link is not in the local catalogues: nothing was saved.

    Online, the page offers to fetch it and link it in one step; offline it says it cannot.
    """

    def __init__(self, identifier: tuple[str, str]) -> None:
        self.identifier = identifier
        self.source = source_of(identifier)
        self.offline = bool(settings.CITEREC_OFFLINE)
        where = "local catalogue" if self.source == "arXiv" else "local Crossref catalogue"
        text = f"The link to {_named(identifier)} was not saved: it is not in the {where}"
        if self.offline:
            text += f", and citerec is offline (CITEREC_OFFLINE=1), so it cannot be fetched from {self.source}."
        else:
            text += f". Fetch it from {self.source} and link it in one step with the button below."
        super().__init__(text)


def _named(identifier: tuple[str, str]) -> str:
    scheme, value = identifier
    return f"arXiv:{value}" if scheme == "arxiv" else f"doi:{value}"


def _common(form: f.DecisionForm) -> dict[str, Any]:
    return {
        "expected_revision": form.cleaned_data["revision"],
        "reason": form.cleaned_data["reason"],
    }


def _link(o: Observation, form: Any, actor: Actor) -> Done:
    d = form.cleaned_data
    if not is_catalogued(d["identifier"]):
        raise NotCatalogued(d["identifier"])
    after = observation_link_identifier(
        observation=o, identifier=_named(d["identifier"]), actor=actor, **_common(form)
    )
    return Done(f"Linked to {_named(d['identifier'])}.", after)


def _accept(o: Observation, form: Any, actor: Actor) -> Done:
    d = form.cleaned_data
    accept_target(o, d["identifier"], confirmed=d["confirm_low_score"])
    return _link(o, form, actor)


def _fetch_link(o: Observation, form: Any, actor: Actor) -> Done:
    d = form.cleaned_data
    known = is_catalogued(d["identifier"])
    after = observation_fetch_and_link(
        observation=o, identifier=d["identifier"], actor=actor, **_common(form)
    )
    fetched = "" if known else f"Fetched from {source_of(d['identifier'])} and "
    return Done(f"{fetched}{'l' if fetched else 'L'}inked to {_named(d['identifier'])}.", after)


def _state(o: Observation, form: Any, actor: Actor) -> Done:
    after = observation_set_state(
        observation=o, status=form.cleaned_data["status"], actor=actor, **_common(form)
    )
    return Done(f"State set to {form.cleaned_data['status']}.", after)


def _no_record(o: Observation, form: Any, actor: Actor) -> Done:
    after = observation_mark_no_canonical_record(observation=o, actor=actor, **_common(form))
    return Done("Marked as having no canonical record: it left the work queue.", after)


def _correct(o: Observation, form: Any, actor: Actor) -> Done:
    changes = form.changes(o)
    if not changes:
        raise CurationError("nothing to correct: every field is as it was")
    after = observation_correct(observation=o, changes=changes, actor=actor, **_common(form))
    return Done("Corrected " + ", ".join(sorted(changes)) + ".", after)


def _retire(o: Observation, form: Any, actor: Actor) -> Done:
    after = observation_retire(observation=o, actor=actor, **_common(form))
    return Done("Retired: out of the record, kept in the history.", after)


def _unpin(o: Observation, form: Any, actor: Actor) -> Done:
    after = observation_unpin(observation=o, actor=actor, **_common(form))
    return Done("Unpinned: the resolver may change it again.", after)


def _accept_proposal(o: Observation, form: Any, actor: Actor) -> Done:
    after = accept_proposal(observation=o, actor=actor, **_common(form))
    status = after.resolution.status if hasattr(after, "resolution") else "unresolved"
    return Done(f"Accepted the resolver's verdict ({status}); the observation is unpinned.", after)


def _same_text(o: Observation, form: Any, actor: Actor) -> Done:
    outcome = observations_apply_same_text(
        observation=o, target_revisions=form.cleaned_data["targets"], actor=actor, **_common(form)
    )
    count = outcome.done
    text = f"Applied this decision to {count} other observation{'s' if count != 1 else ''} with the same text."
    if outcome.skipped:
        text += f" Skipped {len(outcome.skipped)}: " + "; ".join(outcome.skipped)
    return Done(text, None)


def _split(o: Observation, form: Any, actor: Actor) -> Done:
    parts = observation_split(
        observation=o, parts=form.cleaned_data["parts"], actor=actor, **_common(form)
    )
    return Done(f"Split into {len(parts)} references; the original is retired.", None)


def _revert(o: Observation, form: Any, actor: Actor) -> Done:
    wanted = form.cleaned_data.get("to_revision")
    if wanted is not None:
        after = observation_revert_to_revision(
            observation=o, to_revision=wanted, actor=actor, **_common(form)
        )
        return Done(f"Reverted to revision {wanted}; this is revision {after.revision}.", after)
    event = observation_version(o, form.cleaned_data["event_id"])
    if event is None:
        raise CurationError("that history entry is not a version of this reference")
    after = observation_revert(observation=o, event_id=event.pgh_id, actor=actor, **_common(form))
    return Done(f"Reverted to revision {event.revision}; this is revision {after.revision}.", after)


def _undo(o: Observation, form: Any, actor: Actor) -> Done:
    d = form.cleaned_data
    after = observation_undo(
        observation=o,
        decided_revision=d["revision"],
        to_revision=d["to_revision"],
        actor=actor,
        reason=d["reason"],
    )
    return Done(
        f"Undone: back to revision {d['to_revision']}; this is revision {after.revision}.", after
    )


@dataclass(frozen=True)
class Decision:
    """A decision the observation page offers: its form and its handler."""

    form: type[forms.Form]
    handle: Handler
    label: str


DECISIONS: dict[str, Decision] = {
    "accept_candidate": Decision(f.AcceptCandidateForm, _accept, "Accept candidate"),
    "link": Decision(f.LinkForm, _link, "Link"),
    "fetch_link": Decision(f.LinkForm, _fetch_link, "Fetch and link"),
    "set_state": Decision(f.StateForm, _state, "Set state"),
    "no_canonical_record": Decision(f.DecisionForm, _no_record, "No canonical record"),
    "correct": Decision(f.CorrectForm, _correct, "Save corrections"),
    "retire": Decision(f.DecisionForm, _retire, "Retire as junk"),
    "unpin": Decision(f.DecisionForm, _unpin, "Unpin"),
    "accept_proposal": Decision(f.DecisionForm, _accept_proposal, "Accept the resolver's verdict"),
    "apply_same_text": Decision(f.SameTextForm, _same_text, "Apply to all with the same text"),
    "split": Decision(f.SplitForm, _split, "Split"),
    "revert": Decision(f.RevertForm, _revert, "Revert to this revision"),
    "undo": Decision(f.UndoForm, _undo, "Undo"),
}
