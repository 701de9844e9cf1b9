"""Curator decisions that touch several observations at once: merge duplicates, split a
reference holding two works, copy a decision to every reference with the same text.

Each takes the revisions its author was shown, locks every row it may write in one statement
ordered by primary key (two of them on overlapping rows wait for each other instead of
deadlocking), refuses retired or already-merged observations, and says how many rows it skipped
and why (who changed them, when, and the reason they gave).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pghistory
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ..audit import Actor, audited
from ..models import Observation, Resolution
from ..references.normalize import normalize_reference_text
from ..states import Origin
from .observations import (
    CurationError,
    StaleRevision,
    describe_change,
    last_change,
    lock,
    write_decision,
)

Revisions = Mapping[str, int]


@dataclass
class GroupOutcome:
    """How many observations a group decision changed, and why it left the others alone."""

    done: int = 0
    skipped: list[str] = field(default_factory=list)


def label(observation: Observation) -> str:
    """Return how a curator names a reference: paper and number."""
    return f"{observation.paper.arxiv_id} ref {observation.reference_index}"


def lock_in_order(condition: Q) -> list[Observation]:
    """Lock the matching observations in primary-key order, in one statement.

    PostgreSQL locks the rows as the sorted scan returns them, so every writer acquires
    overlapping rows in the same order: the later one waits, neither deadlocks.
    """
    return list(
        Observation.objects.select_for_update(of=("self",))
        .select_related("paper")
        .filter(condition)
        .order_by("pk")
    )


def refusal(observation: Observation, seen: int | None) -> str | None:
    """Return why a group decision must leave this observation alone, or None."""
    if observation.retired_at is not None:
        change = last_change(observation.pk)
        into = change.get("merged_into_ref")
        what = f"already merged into {into}" if into else "retired"
        return f"{label(observation)}: {what} by {describe_change(change)}"
    if seen is None:
        return f"{label(observation)}: not shown when you decided (it appeared since)"
    if observation.revision != seen:
        return (
            f"{label(observation)}: changed by {describe_change(last_change(observation.pk))}; "
            f"you saw revision {seen}, it is now {observation.revision}"
        )
    return None


def _refuse_source(source: Observation, expected_revision: int, verb: str) -> None:
    """Refuse the whole decision when the observation it starts from is stale or retired."""
    if source.revision != expected_revision:
        raise StaleRevision(source.pk, expected_revision, source.revision, last_change(source.pk))
    if source.retired_at is not None:
        raise CurationError(f"cannot {verb}: {refusal(source, expected_revision)}")


@transaction.atomic
def observations_apply_same_text(
    *,
    observation: Observation,
    expected_revision: int,
    target_revisions: Revisions,
    actor: Actor,
    reason: str,
) -> GroupOutcome:
    """Copy this observation's decision to the same-text observations the curator was shown.

    `target_revisions` maps each target shown (observation id) to the revision shown; a target
    changed since, retired since, or not shown at all is skipped and reported.
    """
    if not observation.normalized_text:
        raise CurationError("this observation has no reference text to match")
    outcome = GroupOutcome()
    with audited(actor, reason):
        # Retired rows are locked too, so one retired meanwhile is reported, not silently dropped.
        rows = lock_in_order(
            Q(pk=observation.pk)
            | Q(normalized_text=observation.normalized_text, raw_text__isnull=False)
        )
        source = next(o for o in rows if o.pk == observation.pk)
        _refuse_source(source, expected_revision, "apply this decision")
        resolution = getattr(source, "resolution", None)
        if resolution is None:
            raise CurationError("this observation has no decision to apply")
        now = timezone.now()
        for target in rows:
            if target.pk == source.pk:
                continue
            seen = target_revisions.get(str(target.pk))
            if target.retired_at is not None and seen is None:
                continue  # retired before the curator looked: never offered
            why = refusal(target, seen)
            if why:
                outcome.skipped.append(why)
                continue
            target.no_canonical_record = source.no_canonical_record
            write_decision(
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
            outcome.done += 1
    return outcome


def _distinct_of_one_paper(keep: Observation, duplicates: Iterable[Observation]) -> None:
    for duplicate in duplicates:
        if duplicate.paper_id != keep.paper_id or duplicate.pk == keep.pk:
            raise CurationError("only distinct observations of the same paper can be merged")


@transaction.atomic
def observations_merge(
    *,
    keep: Observation,
    duplicates: list[Observation],
    revisions: Revisions,
    actor: Actor,
    reason: str,
) -> GroupOutcome:
    """Merge duplicate observations of one paper into `keep`: the duplicates are retired.

    `revisions` maps every observation shown (the kept one included) to the revision shown.
    A stale or retired keeper refuses the whole merge; a stale, retired or already merged
    duplicate is skipped and reported; a merge that would merge nothing is refused.
    """
    _distinct_of_one_paper(keep, duplicates)
    outcome = GroupOutcome()
    with audited(actor, reason):
        rows = lock_in_order(Q(pk__in=[keep.pk, *(d.pk for d in duplicates)]))
        kept = next(o for o in rows if o.pk == keep.pk)
        _refuse_source(kept, _seen(revisions, kept), "merge into this reference")
        now = timezone.now()
        for current in rows:
            if current.pk == kept.pk:
                continue
            why = refusal(current, revisions.get(str(current.pk)))
            if why:
                outcome.skipped.append(why)
                continue
            with pghistory.context(merged_into=str(kept.pk), merged_into_ref=label(kept)):
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
            outcome.done += 1
        if not outcome.done:
            raise CurationError("nothing merged: " + "; ".join(outcome.skipped))
    return outcome


def _seen(revisions: Revisions, observation: Observation) -> int:
    seen = revisions.get(str(observation.pk))
    if seen is None:
        raise CurationError(f"{label(observation)} was not shown when you decided: reload")
    return seen


@transaction.atomic
def observation_split(
    *,
    observation: Observation,
    parts: list[str],
    expected_revision: int,
    actor: Actor,
    reason: str,
) -> list[Observation]:
    """Split a reference that holds two or more works into one observation per part."""
    parts = [p.strip() for p in parts if p.strip()]
    if len(parts) < 2:
        raise CurationError("a split needs at least two non-empty parts")
    now = timezone.now()
    created = []
    with audited(actor, reason):
        original = lock(observation, expected_revision)
        if original.retired_at is not None:
            raise CurationError(f"cannot split: {refusal(original, expected_revision)}")
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
