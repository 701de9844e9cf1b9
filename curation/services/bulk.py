"""Bulk decisions on many observations: one transaction and one history context per action.

Every write carries the revision the curator was shown (`seen`, by observation id): an
observation changed by someone else since, retired since or not shown at all is skipped and
reported with who, when and why, never overwritten. The admin's bulk actions are the face.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pghistory
from django.db import transaction
from django.db.models import Q

from ..audit import Actor, audited
from ..models import Observation
from ..resolution.candidates import top_candidate
from ..states import ResolutionStatus
from .observation_groups import (
    GroupOutcome,
    label,
    lock_in_order,
    observations_apply_same_text,
    observations_merge,
    refusal,
)
from .observations import (
    CurationError,
    describe_change,
    last_change,
    observation_link_identifier,
    observation_mark_no_canonical_record,
    observation_retire,
    observation_set_state,
)

RESOLVE_CHUNK = 250  # observations per resolver batch when re-running a selection


@dataclass
class BulkOutcome:
    """What a bulk action did, for the curator's message."""

    done: int = 0
    skipped: list[str] = field(default_factory=list)

    def message(self, verb: str) -> str:
        """Return the one-line summary."""
        text = f"{verb}: {self.done} observation{'s' if self.done != 1 else ''}."
        if self.skipped:
            text += f" Skipped {len(self.skipped)}: " + "; ".join(self.skipped[:5])
            text += " …" if len(self.skipped) > 5 else ""
        return text


PerObservation = Callable[[Observation, int, Actor, str, float], None]


def _accept_top(o: Observation, rev: int, actor: Actor, reason: str, threshold: float) -> None:
    if o.pinned:
        # A curator's decision replaced the resolver's candidates: say so, not "no candidate".
        raise CurationError(
            f"{label(o)}: pinned by a curator ({describe_change(last_change(o.pk))}); "
            "a bulk rule does not override a curator: decide on its page"
        )
    resolution = getattr(o, "resolution", None)
    best = top_candidate(resolution.evidence if resolution else None)
    if best is None:
        raise CurationError(f"{label(o)}: no candidates in its evidence")
    if best.score is None or best.score < threshold:
        scored = "no score" if best.score is None else f"scores {best.score:g}"
        raise CurationError(f"{label(o)}: top candidate {scored}, below {threshold:g}")
    observation_link_identifier(
        observation=o, identifier=best.identifier, expected_revision=rev, actor=actor, reason=reason
    )


def _parse_uncertain(o: Observation, rev: int, actor: Actor, reason: str, _: float) -> None:
    observation_set_state(
        observation=o,
        status=ResolutionStatus.PARSE_UNCERTAIN,
        expected_revision=rev,
        actor=actor,
        reason=reason,
    )


def _no_record(o: Observation, rev: int, actor: Actor, reason: str, _: float) -> None:
    observation_mark_no_canonical_record(
        observation=o, expected_revision=rev, actor=actor, reason=reason
    )


def _retire(o: Observation, rev: int, actor: Actor, reason: str, _: float) -> None:
    observation_retire(observation=o, expected_revision=rev, actor=actor, reason=reason)


PER_OBSERVATION: dict[str, PerObservation] = {
    "accept_top_candidate": _accept_top,
    "mark_parse_uncertain": _parse_uncertain,
    "mark_no_canonical_record": _no_record,
    "retire_junk": _retire,
}


def _each(
    decide: PerObservation,
    rows: list[Observation],
    seen: dict[str, int],
    actor: Actor,
    reason: str,
    threshold: float,
) -> BulkOutcome:
    outcome = BulkOutcome()
    for o in rows:
        revision = seen.get(str(o.pk))
        if revision is None:
            outcome.skipped.append(f"{label(o)}: not shown on the confirmation page")
            continue
        try:
            decide(o, revision, actor, reason, threshold)
        except CurationError as exc:
            outcome.skipped.append(str(exc))
            continue
        outcome.done += 1
    return outcome


def _rerun(rows: list[Observation], seen: dict[str, int], actor: Actor, reason: str) -> BulkOutcome:
    from ..resolution.services import observations_resolve  # the resolution floor imports this

    outcome = BulkOutcome()
    # Held until the action commits: nobody changes a row between this check and the resolver.
    locked = lock_in_order(Q(pk__in=[o.pk for o in rows]))
    current = []
    for o in locked:
        why = refusal(o, seen.get(str(o.pk)))
        if why:
            outcome.skipped.append(why)
        else:
            current.append(o)
    for start in range(0, len(current), RESOLVE_CHUNK):
        result = observations_resolve(
            observations=current[start : start + RESOLVE_CHUNK], actor=actor, reason=reason
        )
        outcome.done += result.changed + result.unchanged + result.pinned
        outcome.skipped += (
            [f"{result.pinned} pinned: disagreements kept for curators"] if result.pinned else []
        )
        outcome.skipped += list(result.errors or [])
    return outcome


def merge_keeper(rows: list[Observation]) -> Observation:
    """Return the observation a merge keeps: the lowest reference number."""
    return sorted(rows, key=lambda o: (o.reference_index, str(o.pk)))[0]


def _from_group(outcome: GroupOutcome) -> BulkOutcome:
    return BulkOutcome(done=outcome.done, skipped=outcome.skipped)


def _merge(rows: list[Observation], seen: dict[str, int], actor: Actor, reason: str) -> BulkOutcome:
    if len(rows) < 2:
        raise CurationError("select at least two observations of one paper to merge")
    keep = merge_keeper(rows)
    duplicates = [o for o in rows if o.pk != keep.pk]
    return _from_group(
        observations_merge(
            keep=keep, duplicates=duplicates, revisions=seen, actor=actor, reason=reason
        )
    )


def _same_text(
    rows: list[Observation], seen: dict[str, int], actor: Actor, reason: str
) -> BulkOutcome:
    if len(rows) != 1:
        raise CurationError("select exactly one observation whose decision is to be copied")
    source = rows[0]
    revision = seen.get(str(source.pk))
    if revision is None:
        raise CurationError(f"{label(source)} was not shown on the confirmation page: reload")
    return _from_group(
        observations_apply_same_text(
            observation=source,
            expected_revision=revision,
            target_revisions=seen,
            actor=actor,
            reason=reason,
        )
    )


WHOLE: dict[str, Callable[[list[Observation], dict[str, int], Actor, str], BulkOutcome]] = {
    "rerun_resolver": _rerun,
    "merge_duplicates": _merge,
    "apply_same_text": _same_text,
}
BULK_ACTIONS = frozenset(PER_OBSERVATION) | frozenset(WHOLE)


def observations_bulk_decide(
    *,
    action: str,
    observations: list[Observation],
    seen: dict[str, int],
    actor: Actor,
    reason: str,
    threshold: float = 0.0,
) -> BulkOutcome:
    """Apply one bulk action (BULK_ACTIONS) to the observations, all in one transaction.

    `seen` holds the revision the curator was shown of each observation; `threshold` is the
    lowest top-candidate score accept_top_candidate links. Raise CurationError, writing
    nothing, when the action cannot apply to this selection at all.
    """
    if action not in BULK_ACTIONS:
        raise CurationError(f"unknown bulk action {action!r}")
    with transaction.atomic(), audited(actor, reason), pghistory.context(bulk_action=action):
        if action in PER_OBSERVATION:
            return _each(PER_OBSERVATION[action], observations, seen, actor, reason, threshold)
        return WHOLE[action](observations, seen, actor, reason)
