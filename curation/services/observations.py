"""Curator decisions on one observation (SPEC §6): links, states, corrections, retire, unpin,
revert. Each carries the revision its author saw, pins the observation and refuses a stale edit
with who, when and why of the change that superseded it (merge, split and same-text
propagation, which touch several rows, are in observation_groups).

A decision writes the same columns as the resolver outcome it amounts to (SPEC §2's table);
that a curator made it is recorded in the history context and in the evidence.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from .. import history
from ..audit import Actor, audited
from ..history import event_model
from ..limits import current_limits
from ..models import Observation, Paper, Resolution
from ..moments import moment_text
from ..notices.services.follow import standing_notice_revert, standing_notices_follow_links
from ..people import person
from ..references.identifiers import canonical_arxiv_id, canonical_doi, curated_identifier
from ..resolution.services.catalogue_imports import store_crossref_works
from ..resolution.services.labels import (
    link_targets,
    verdict_label,
    verdict_labels_withdraw,
    verdict_seen,
)
from ..resolution.services.works import canonical_work
from ..states import VERIFIED_STATUSES, ChangeSource, Origin, ResolutionStatus, ResolverSource
from .group_counts import recount_groups_of

CORRECTABLE_FIELDS = ("work_title", "work_year", "work_venue", "reference_index")


class CurationError(ValueError):
    """A curator's request that cannot be carried out as asked (the message says why)."""


@dataclass
class StaleRevision(CurationError):
    """Someone else changed the observation since it was shown: nothing was overwritten."""

    observation_id: uuid.UUID
    expected: int
    current: int
    last_change: dict[str, Any]

    def __str__(self) -> str:
        return (
            f"observation {self.observation_id} was changed by {describe_change(self.last_change)}; "
            f"you edited revision {self.expected}, it is now {self.current}. Reload and decide again."
        )

    def detail(self) -> dict[str, Any]:
        """Return who, when and why of the change that superseded the author's revision."""
        return {
            "message": str(self),
            "observation_id": str(self.observation_id),
            "expected_revision": self.expected,
            "current_revision": self.current,
            "changed_by": self.last_change.get("actor"),
            "changed_at": self.last_change.get("at"),
            "change_source": self.last_change.get("source"),
            "reason": self.last_change.get("reason"),
        }


def describe_change(change: dict[str, Any]) -> str:
    """Return "who at when (why)" for a history context, as the refusals word it: people by
    name and the curator screens' one time format."""
    who = person(change) if change.get("actor") or change.get("user") else "someone"
    when = moment_text(change["at"]) if change.get("at") else "an unknown time"
    why = change.get("reason") or "no reason recorded"
    return f"{who} at {when} ({why})"


def last_change(observation_id: uuid.UUID) -> dict[str, Any]:
    """Return the history context (who, where from, why) and time of the latest change."""
    return history.last_change("Observation", observation_id)


def lock(observation: Observation | uuid.UUID, expected_revision: int) -> Observation:
    """Lock the observation's row; refuse when it moved past the revision the author saw.

    A system follow-up does not make the author's revision stale: a link is followed at once
    by its standing-notice check, which gives the reference a new revision without touching
    anything a curator decides. Any other change since (a field, a new resolution) refuses.
    """
    pk = observation.pk if isinstance(observation, Observation) else observation
    # of=("self",): lock the observation only, never its paper (other curators work on it).
    current = Observation.objects.select_for_update(of=("self",)).select_related("paper").get(pk=pk)
    if current.revision != expected_revision and not _only_notice_checks_since(
        current, expected_revision
    ):
        raise StaleRevision(
            current.pk, expected_revision, current.revision, last_change(current.pk)
        )
    return current


def write_decision(
    observation: Observation,
    *,
    status: str,
    resolver_source: str | None,
    cited_paper: Paper | None,
    action: str,
    actor: Actor,
    reason: str,
    now: datetime,
    work: dict[str, Any] | None = None,
    extra_evidence: dict[str, Any] | None = None,
    batched: bool = False,
) -> None:
    """Write a decision: link columns, resolution with evidence, pin, revision.

    `batched`: the caller writes many decisions and then follows their notices and recounts
    their groups once for all of them (one notice refresh per work, not one per reference).
    """
    if cited_paper is not None and status not in VERIFIED_STATUSES:
        raise CurationError("only a verified state links a cited paper (SPEC §2)")
    previous = getattr(observation, "resolution", None)
    seen = verdict_seen(observation)  # the resolver's verdict the curator decided on, if any
    evidence = {
        "decided_by": "curator",
        "action": action,
        "actor": actor.name,
        "reason": reason,
        "previous": {
            "status": previous.status if previous else None,
            "resolver_source": previous.resolver_source if previous else None,
            "cited_paper": observation.cited_paper.arxiv_id if observation.cited_paper else None,
        },
        **(extra_evidence or {}),
    }
    for name, value in (work or {}).items():
        setattr(observation, name, value)
    observation.cited_paper = cited_paper
    # Only a verified state links a work (SPEC §2), as the resolver's verdicts do: "No match" on
    # a reference that prints a DOI keeps the DOI it printed, but links no work to check notices of.
    by_doi = resolver_source == ResolverSource.DOI and status in VERIFIED_STATUSES
    observation.cited_work = canonical_work(observation.work_doi if by_doi else None, cited_paper)
    observation.pinned = True
    observation.revision += 1
    observation.changed_at = now
    observation.save()
    Resolution.objects.update_or_create(
        observation=observation,
        defaults={
            "status": status,
            "resolver_source": resolver_source,
            "observed_at": now,
            "evidence": evidence,
            "origin": Origin.CURATOR,
        },
    )
    if seen is not None:  # every decision on a resolver verdict is a label (issue 41)
        cited = cited_paper.arxiv_id if cited_paper else None
        targets = link_targets(status, resolver_source, cited, observation.work_doi)
        no_match = action == "no_canonical_record"
        verdict_label(seen, targets=targets, no_match=no_match, action=action, actor=actor,
                      now=now, revision=observation.revision)  # fmt: skip
    if not batched:
        standing_notices_follow_links([observation.pk])  # the notice follows the decided link
        recount_groups_of([observation])  # one citation fewer to fix in its group


def _linked_already(
    observation: Observation, resolver_source: str, cited_paper: Paper | None, work: dict[str, Any]
) -> bool:
    """Return whether a curator already linked the observation so (the same candidate
    accepted again): then nothing is written, no revision, no history, the record's times stay."""
    previous = getattr(observation, "resolution", None)
    return (
        observation.pinned
        and previous is not None
        and previous.origin == Origin.CURATOR
        and previous.status == ResolutionStatus.VERIFIED_EXACT
        and previous.resolver_source == resolver_source
        and observation.cited_paper_id == (cited_paper.pk if cited_paper else None)
        and all(getattr(observation, name) == value for name, value in work.items())
    )


@transaction.atomic
def observation_link_arxiv(
    *,
    observation: Observation,
    arxiv_id: str,
    expected_revision: int,
    actor: Actor,
    reason: str,
) -> Observation:
    """Link the observation to a known arXiv paper (checked before anything is saved).

    The id is cleaned as every curated identifier is (`arXiv:1604.06174v2`, an abs URL).
    """
    cleaned = canonical_arxiv_id(arxiv_id)
    if cleaned is None:
        raise CurationError(f"{arxiv_id!r} is not an arXiv id")
    arxiv_id = cleaned
    paper = Paper.objects.filter(arxiv_id=arxiv_id).first()
    if paper is None:
        raise CurationError(f"arXiv:{arxiv_id} is not in the catalogue or the records")
    source = ResolverSource.LOCAL_ARXIV if paper.in_catalogue else ResolverSource.PITH
    with audited(actor, reason):
        current = lock(observation, expected_revision)
        work = {"work_pith_arxiv_id": paper.arxiv_id}
        if _linked_already(current, source, paper, work):
            return current
        write_decision(
            current,
            status=ResolutionStatus.VERIFIED_EXACT,
            resolver_source=source,
            cited_paper=paper,
            action="link_arxiv",
            actor=actor,
            reason=reason,
            now=timezone.now(),
            work=work,
        )
    return current


def observation_link_doi(
    *,
    observation: Observation,
    doi: str,
    expected_revision: int,
    actor: Actor,
    reason: str,
) -> Observation:
    """Link the observation to a DOI record, once the DOI is known (curation.resolution.dois).

    The DOI is cleaned as every curated identifier is (a doi.org URL, a trailing full stop,
    any case), then checked, outside the transaction that writes (online that may ask
    Crossref); an unknown DOI is refused with why, and nothing is written.
    """
    from ..resolution.dois import doi_check  # the resolution floor sits on top of this one

    cleaned = canonical_doi(doi)
    if cleaned is None:
        raise CurationError(f"{doi!r} is not a DOI")
    doi = cleaned
    check = doi_check(doi)
    if not check.known:
        raise CurationError(f"DOI {doi} was not saved: {check.how}")
    return _link_known_doi(
        observation, doi, expected_revision, actor, reason, fetched=check.crossref_work
    )


@transaction.atomic
def _link_known_doi(
    observation: Observation,
    doi: str,
    expected_revision: int,
    actor: Actor,
    reason: str,
    fetched: dict[str, Any] | None = None,
) -> Observation:
    if fetched is not None:  # Crossref's answer joins the local catalogue with the link
        store_crossref_works([fetched])
    paper = Paper.objects.filter(doi__iexact=doi).first()  # a DOI may belong to an arXiv paper
    with audited(actor, reason):
        current = lock(observation, expected_revision)
        if _linked_already(current, ResolverSource.DOI, paper, {"work_doi": doi}):
            return current
        write_decision(
            current,
            status=ResolutionStatus.VERIFIED_EXACT,
            resolver_source=ResolverSource.DOI,
            cited_paper=paper,
            action="link_doi",
            actor=actor,
            reason=reason,
            now=timezone.now(),
            work={"work_doi": doi},
        )
    return current


def observation_link_identifier(
    *,
    observation: Observation,
    identifier: str,
    expected_revision: int,
    actor: Actor,
    reason: str,
) -> Observation:
    """Link to what an identifier names, as typed or as a candidate carries it: an arXiv id
    (observation_link_arxiv) or a DOI (observation_link_doi), each checked before it is saved."""
    cleaned = curated_identifier(identifier)
    if cleaned is None:
        raise CurationError(f"{identifier!r} is neither an arXiv id nor a DOI")
    scheme, value = cleaned
    common: dict[str, Any] = {
        "observation": observation,
        "expected_revision": expected_revision,
        "actor": actor,
        "reason": reason,
    }
    if scheme == "arxiv":
        return observation_link_arxiv(arxiv_id=value, **common)
    return observation_link_doi(doi=value, **common)


@transaction.atomic
def observation_set_state(
    *,
    observation: Observation,
    status: str,
    expected_revision: int,
    actor: Actor,
    reason: str,
) -> Observation:
    """Set a non-verified state (e.g. parse_uncertain for "write newline"); unlinks the paper."""
    if status in VERIFIED_STATUSES:
        raise CurationError("a verified state needs a link: link an arXiv id or a DOI instead")
    ResolutionStatus(status)  # refuse unknown states
    with audited(actor, reason):
        current = lock(observation, expected_revision)
        previous = getattr(current, "resolution", None)
        write_decision(
            current,
            status=status,
            resolver_source=previous.resolver_source if previous else None,
            cited_paper=None,
            action="set_state",
            actor=actor,
            reason=reason,
            now=timezone.now(),
        )
    return current


@transaction.atomic
def observation_mark_no_canonical_record(
    *, observation: Observation, expected_revision: int, actor: Actor, reason: str
) -> Observation:
    """Mark a reference (software, web page, book) as having no canonical record: off the queue."""
    with audited(actor, reason):
        current = lock(observation, expected_revision)
        current.no_canonical_record = True
        write_decision(
            current,
            status=ResolutionStatus.UNRESOLVED,
            resolver_source=ResolverSource.RAW_FALLBACK,
            cited_paper=None,
            action="no_canonical_record",
            actor=actor,
            reason=reason,
            now=timezone.now(),
        )
    return current


@transaction.atomic
def observation_correct(
    *,
    observation: Observation,
    changes: dict[str, Any],
    expected_revision: int,
    actor: Actor,
    reason: str,
) -> Observation:
    """Correct the described work's title, year, venue or the reference number."""
    unknown = set(changes) - set(CORRECTABLE_FIELDS)
    if unknown:
        raise CurationError(f"cannot correct {', '.join(sorted(unknown))}")
    _check_text_sizes(changes)
    with audited(actor, reason):
        current = lock(observation, expected_revision)
        for name, value in changes.items():
            setattr(current, name, value)
        current.pinned = True
        current.revision += 1
        current.changed_at = timezone.now()
        current.save()
    return current


def _check_text_sizes(changes: dict[str, Any]) -> None:
    """Refuse a title or venue longer than the limit a record import allows (curation.limits)."""
    limits = current_limits()
    for name in ("work_title", "work_venue"):
        value = changes.get(name)
        if isinstance(value, str) and len(value) > limits.string_chars:
            what = limits.describe("string_chars", "characters")
            raise CurationError(f"{name} of {len(value):,} characters is longer than {what}")
        if isinstance(value, str) and "\x00" in value:
            raise CurationError(f"{name} contains a NUL character")


@transaction.atomic
def observation_retire(
    *, observation: Observation, expected_revision: int, actor: Actor, reason: str
) -> Observation:
    """Retire junk (e.g. a year read as a reference): out of the record, kept in history."""
    with audited(actor, reason):
        current = lock(observation, expected_revision)
        current.retired_at = current.changed_at = timezone.now()
        current.pinned = True
        current.revision += 1
        current.save()
        recount_groups_of([current])
    return current


@transaction.atomic
def observation_unpin(
    *, observation: Observation, expected_revision: int, actor: Actor, reason: str
) -> Observation:
    """Hand the observation back to the resolver (accepting its proposal unpins too)."""
    with audited(actor, reason):
        current = lock(observation, expected_revision)
        current.pinned = False
        current.revision += 1
        current.save(update_fields=["pinned", "revision"])
        recount_groups_of([current])  # undecided again
    return current


_NOT_RESTORED = {"id", "revision", "changed_at"}


@transaction.atomic
def observation_revert(
    *,
    observation: Observation,
    event_id: int,
    expected_revision: int,
    actor: Actor,
    reason: str,
) -> Observation:
    """Restore the observation and its resolution as they were at a history event."""
    observation_events = event_model("Observation")
    resolution_events = event_model("Resolution")
    event = observation_events.objects.filter(pgh_id=event_id, pgh_obj_id=observation.pk).first()
    if event is None:
        raise CurationError(f"history event {event_id} is not a version of this observation")
    # The resolution of that version: written by the same decision (same context), else the
    # last one written before it.
    versions = resolution_events.objects.filter(pgh_obj_id=observation.pk).order_by("-pgh_id")
    then = (
        versions.filter(pgh_context_id=event.pgh_context_id).first()
        or versions.filter(pgh_created_at__lt=event.pgh_created_at).first()
    )
    with audited(actor, reason):
        current = lock(observation, expected_revision)
        for field in Observation._meta.concrete_fields:
            if field.attname not in _NOT_RESTORED:
                setattr(current, field.attname, getattr(event, field.attname))
        current.revision += 1
        current.changed_at = timezone.now()
        current.save()
        if then is None or then.pgh_label == "delete":
            Resolution.objects.filter(observation=current).delete()
        else:
            values = {
                f.attname: getattr(then, f.attname)
                for f in Resolution._meta.concrete_fields
                if f.attname != "observation_id"
            }
            Resolution.objects.update_or_create(observation=current, defaults=values)
        standing_notice_revert(current, event)  # the notice of that version, or the link's
        # The decisions taken back are no judgement of the resolver (issue 41 labels).
        verdict_labels_withdraw(observation_id=current.pk, after_revision=event.revision)
        recount_groups_of([current])
    return current


def _event_at(observation: Observation, revision: int) -> Any:
    """Return the observation's latest history event at a revision, or None."""
    events = event_model("Observation").objects.filter(pgh_obj_id=observation.pk)
    return events.filter(revision=revision).order_by("-pgh_id").first()


def _version_at(observation: Observation, revision: int) -> Any:
    """Return the observation's latest history event at a revision, or refuse."""
    event = _event_at(observation, revision)
    if event is None:
        raise CurationError(f"revision {revision} is not a revision of this reference")
    return event


def observation_revert_to_revision(
    *,
    observation: Observation,
    to_revision: int,
    expected_revision: int,
    actor: Actor,
    reason: str,
) -> Observation:
    """observation_revert to the version the observation had at one of its revisions."""
    event = _version_at(observation, to_revision)
    return observation_revert(
        observation=observation,
        event_id=event.pgh_id,
        expected_revision=expected_revision,
        actor=actor,
        reason=reason,
    )


UNDO_REASON = "undo"
# What a notice check changes on the observation itself: a new revision, nothing decided.
_NOTICE_MOVES = {"revision", "changed_at"}


@transaction.atomic
def observation_undo(
    *,
    observation: Observation,
    decided_revision: int,
    to_revision: int,
    actor: Actor,
    reason: str = UNDO_REASON,
) -> Observation:
    """Undo a decision: go back to `to_revision` from the `decided_revision` it left.

    The notice check that follows a link does not stand in the undo's way (`lock`).
    """
    return observation_revert_to_revision(
        observation=observation,
        to_revision=to_revision,
        expected_revision=decided_revision,
        actor=actor,
        reason=reason,
    )


def _only_notice_checks_since(current: Observation, revision: int) -> bool:
    """Return whether the observation changed since `revision` only by standing-notice checks
    (a new revision and `changed_at`, no other column, no new resolution)."""
    if revision >= current.revision:
        return False
    decided = _event_at(current, revision)
    if decided is None:
        return False
    # Every revision since was a system job's (a task), never a person's: a curator writing
    # the same values still makes the page that did not see it stale.
    since = (
        event_model("Observation")
        .objects.filter(pgh_obj_id=current.pk, revision__gt=revision)
        .select_related("pgh_context")
    )
    if any((e.pgh_context.metadata if e.pgh_context else {}).get("source") != ChangeSource.TASK
           for e in since):  # fmt: skip
        return False
    fields = [
        f.attname for f in Observation._meta.concrete_fields if f.attname not in _NOTICE_MOVES
    ]
    if any(getattr(current, name) != getattr(decided, name) for name in fields):
        return False
    return not (
        event_model("Resolution")
        .objects.filter(pgh_obj_id=current.pk, pgh_created_at__gt=decided.pgh_created_at)
        .exists()
    )
