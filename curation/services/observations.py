"""Curator decisions on observations (SPEC §6): links, states, corrections, retire, merge,
split, propagate, revert. Each decision pins the observation and refuses a stale edit.

A decision writes the same columns as the resolver outcome it amounts to (SPEC §2's table);
that a curator made it is recorded in the history context and in the evidence.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from ..audit import Actor, audited
from ..history import event_model
from ..models import Observation, Paper, Resolution
from ..notices.follow import standing_notice_revert, standing_notices_follow_links
from ..references.normalize import normalize_reference_text
from ..states import VERIFIED_STATUSES, Origin, ResolutionStatus, ResolverSource
from .works import canonical_work

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
        who = self.last_change.get("actor", "someone")
        why = self.last_change.get("reason", "")
        when = self.last_change.get("at", "")
        return (
            f"observation {self.observation_id} was changed by {who} at {when} ({why}); "
            f"you edited revision {self.expected}, it is now {self.current}. Reload and decide again."
        )


def _last_change(observation_id: uuid.UUID) -> dict[str, Any]:
    events = event_model("Observation")
    event = (
        events.objects.filter(pgh_obj_id=observation_id)
        .select_related("pgh_context")
        .order_by("-pgh_id")
        .first()
    )
    if event is None or event.pgh_context is None:
        return {}
    return {**event.pgh_context.metadata, "at": event.pgh_created_at.isoformat()}


def _locked(observation: Observation | uuid.UUID, expected_revision: int | None) -> Observation:
    """Lock the observation's row; refuse when it moved past the revision the curator saw."""
    pk = observation.pk if isinstance(observation, Observation) else observation
    current = Observation.objects.select_for_update().select_related("paper").get(pk=pk)
    if expected_revision is not None and current.revision != expected_revision:
        raise StaleRevision(
            current.pk, expected_revision, current.revision, _last_change(current.pk)
        )
    return current


def _decide(
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
) -> None:
    """Write a decision: link columns, resolution with evidence, pin, revision."""
    if cited_paper is not None and status not in VERIFIED_STATUSES:
        raise CurationError("only a verified state links a cited paper (SPEC §2)")
    previous = getattr(observation, "resolution", None)
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
    observation.cited_work = canonical_work(
        observation.work_doi if resolver_source == ResolverSource.DOI else None, cited_paper
    )
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
    standing_notices_follow_links([observation.pk])  # the notice follows the decided link


@transaction.atomic
def observation_link_arxiv(
    *,
    observation: Observation,
    arxiv_id: str,
    expected_revision: int | None,
    actor: Actor,
    reason: str,
) -> Observation:
    """Link the observation to a known arXiv paper (checked before anything is saved)."""
    paper = Paper.objects.filter(arxiv_id=arxiv_id).first()
    if paper is None:
        raise CurationError(f"arXiv:{arxiv_id} is not in the catalogue or the records")
    source = ResolverSource.LOCAL_ARXIV if paper.in_catalogue else ResolverSource.PITH
    with audited(actor, reason):
        current = _locked(observation, expected_revision)
        _decide(
            current,
            status=ResolutionStatus.VERIFIED_EXACT,
            resolver_source=source,
            cited_paper=paper,
            action="link_arxiv",
            actor=actor,
            reason=reason,
            now=timezone.now(),
            work={"work_pith_arxiv_id": paper.arxiv_id},
        )
    return current


@transaction.atomic
def observation_link_doi(
    *,
    observation: Observation,
    doi: str,
    expected_revision: int | None,
    actor: Actor,
    reason: str,
    checked: bool,
) -> Observation:
    """Link the observation to a DOI record; `checked` says a catalogue or Crossref confirmed it."""
    if not checked:
        raise CurationError(f"DOI {doi} was not found in the local catalogue or Crossref")
    doi = doi.strip().lower()
    paper = Paper.objects.filter(doi__iexact=doi).first()  # a DOI may belong to an arXiv paper
    with audited(actor, reason):
        current = _locked(observation, expected_revision)
        _decide(
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


@transaction.atomic
def observation_set_state(
    *,
    observation: Observation,
    status: str,
    expected_revision: int | None,
    actor: Actor,
    reason: str,
) -> Observation:
    """Set a non-verified state (e.g. parse_uncertain for "write newline"); unlinks the paper."""
    if status in VERIFIED_STATUSES:
        raise CurationError("a verified state needs a link: link an arXiv id or a DOI instead")
    ResolutionStatus(status)  # refuse unknown states
    with audited(actor, reason):
        current = _locked(observation, expected_revision)
        previous = getattr(current, "resolution", None)
        _decide(
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
    *, observation: Observation, expected_revision: int | None, actor: Actor, reason: str
) -> Observation:
    """Mark a reference (software, web page, book) as having no canonical record: off the queue."""
    with audited(actor, reason):
        current = _locked(observation, expected_revision)
        current.no_canonical_record = True
        _decide(
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
    expected_revision: int | None,
    actor: Actor,
    reason: str,
) -> Observation:
    """Correct the described work's title, year, venue or the reference number."""
    unknown = set(changes) - set(CORRECTABLE_FIELDS)
    if unknown:
        raise CurationError(f"cannot correct {', '.join(sorted(unknown))}")
    with audited(actor, reason):
        current = _locked(observation, expected_revision)
        for name, value in changes.items():
            setattr(current, name, value)
        current.pinned = True
        current.revision += 1
        current.changed_at = timezone.now()
        current.save()
    return current


@transaction.atomic
def observation_retire(
    *, observation: Observation, expected_revision: int | None, actor: Actor, reason: str
) -> Observation:
    """Retire junk (e.g. a year read as a reference): out of the record, kept in history."""
    with audited(actor, reason):
        current = _locked(observation, expected_revision)
        current.retired_at = current.changed_at = timezone.now()
        current.pinned = True
        current.revision += 1
        current.save()
    return current


@transaction.atomic
def observation_unpin(
    *, observation: Observation, expected_revision: int | None, actor: Actor, reason: str
) -> Observation:
    """Hand the observation back to the resolver (accepting its proposal unpins too)."""
    with audited(actor, reason):
        current = _locked(observation, expected_revision)
        current.pinned = False
        current.revision += 1
        current.save(update_fields=["pinned", "revision"])
    return current


def same_text_observations(observation: Observation) -> QuerySet[Observation]:
    """Return the other live observations, in any paper, with the same normalised reference text."""
    if not observation.normalized_text:
        return Observation.objects.none()
    return Observation.objects.filter(
        normalized_text=observation.normalized_text, retired_at__isnull=True, raw_text__isnull=False
    ).exclude(pk=observation.pk)


@transaction.atomic
def observations_apply_same_text(
    *, observation: Observation, actor: Actor, reason: str, expected_revision: int | None = None
) -> int:
    """Copy this observation's decision to every live observation with the same reference text."""
    source = _locked(observation, expected_revision)  # the decision copied is the one seen
    resolution = getattr(source, "resolution", None)
    if resolution is None:
        raise CurationError("this observation has no decision to apply")
    now = timezone.now()
    count = 0
    with audited(actor, reason):
        for target in same_text_observations(source).select_for_update():
            target.no_canonical_record = source.no_canonical_record
            _decide(
                target,
                status=resolution.status,
                resolver_source=resolution.resolver_source,
                cited_paper=source.cited_paper,
                action="apply_same_text",
                actor=actor,
                reason=reason,
                now=now,
                work={f: getattr(source, f) for f in ("work_doi", "work_pith_arxiv_id")},
                extra_evidence={"copied_from": str(source.pk)},
            )
            count += 1
    return count


@transaction.atomic
def observations_merge(
    *, keep: Observation, duplicates: list[Observation], actor: Actor, reason: str
) -> int:
    """Merge duplicate observations of one paper into `keep`: the duplicates are retired."""
    now = timezone.now()
    with audited(actor, reason):
        kept = _locked(keep, None)
        for duplicate in duplicates:
            current = _locked(duplicate, None)
            if current.paper_id != kept.paper_id or current.pk == kept.pk:
                raise CurationError("only distinct observations of the same paper can be merged")
            current.retired_at = current.changed_at = now
            current.pinned = True
            current.revision += 1
            current.save()
            Resolution.objects.filter(observation=current).update(
                evidence={
                    "decided_by": "curator",
                    "action": "merged",
                    "merged_into": str(kept.pk),
                    "actor": actor.name,
                    "reason": reason,
                },
                origin=Origin.CURATOR,
            )
    return len(duplicates)


@transaction.atomic
def observation_split(
    *,
    observation: Observation,
    parts: list[str],
    actor: Actor,
    reason: str,
    expected_revision: int | None = None,
) -> list[Observation]:
    """Split a reference that holds two or more works into one observation per part."""
    parts = [p.strip() for p in parts if p.strip()]
    if len(parts) < 2:
        raise CurationError("a split needs at least two non-empty parts")
    now = timezone.now()
    created = []
    with audited(actor, reason):
        original = _locked(observation, expected_revision)
        for part in parts:
            normalized = normalize_reference_text(part)
            taken = Observation.objects.filter(
                paper=original.paper, source=original.source, normalized_text=normalized
            ).count()
            created.append(
                Observation.objects.create(
                    paper=original.paper,
                    source=original.source,
                    reference_index=original.reference_index,
                    source_observed_at=original.source_observed_at,
                    raw_text=part,
                    normalized_text=normalized,
                    occurrence=taken + 1,
                    work_id=uuid.uuid4(),
                    work_title=None,
                    work_metadata_source="raw_reference",
                    work_snapshot_observed_at=now,
                    changed_at=now,
                )
            )
        original.retired_at = original.changed_at = now
        original.pinned = True
        original.revision += 1
        original.save()
    return created


_NOT_RESTORED = {"id", "revision", "changed_at"}


@transaction.atomic
def observation_revert(
    *,
    observation: Observation,
    event_id: int,
    expected_revision: int | None,
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
        current = _locked(observation, expected_revision)
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
    return current
