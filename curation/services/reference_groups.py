"""One decision for many (issue 41): references citing the same thing across papers are grouped,
and one curator decision applies to every member of a group.

- `groups_join` puts newly imported references in their groups (curation/references/groups.py
  keys them) and keeps each group's counts, which the group queue sorts on. Members that join a
  group a curator already decided are handed to `group_decisions_follow`, queued on commit.
- `group_decide` writes the decision on every undecided member through the observation
  decision path (`write_decision`): each member is pinned with its own history, all under the
  one context and reason, and its evidence names the GroupDecision. A member someone decided
  on its own is left alone and reported: curated data is never silently overwritten.
- `group_undo` reverts every member the decision changed to the revision it had before, under
  one context; a member changed since (a notice check aside) is left alone and reported.
- `group_decisions_follow` gives a member that joined later the group's decision: applied when
  its text is identical to a member the decision was applied to, proposed otherwise.

Every function locks the group row first, then its members in primary-key order, so two of
them on the same group wait for each other instead of deadlocking.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ..audit import Actor, audited
from ..models import (
    GroupDecision,
    GroupDecisionMember,
    Observation,
    Paper,
    ReferenceGroup,
    ReferenceGroupMember,
)
from ..notices.services.follow import standing_notices_follow_links
from ..people import person
from ..queueing import queue_on_commit
from ..references.groups import GroupKey, reference_group_key
from ..references.identifiers import canonical_arxiv_id, canonical_doi, curated_identifier
from ..references.parse import parse_reference
from ..resolution.services.catalogue_imports import store_crossref_works
from ..states import VERIFIED_STATUSES, ChangeSource, ResolutionStatus, ResolverSource
from .group_counts import groups_recount, members_joined_on_commit, recount_on_commit
from .observation_groups import GroupOutcome, label, lock_in_order
from .observations import (
    UNDO_REASON,
    CurationError,
    StaleRevision,
    describe_change,
    last_change,
    lock,
    observation_revert_to_revision,
    write_decision,
)

GROUP_ACTIONS = ("link", "no_canonical_record", "set_state")
FOLLOW_TASK = "curation.tasks.group_decisions_follow"
_LABEL_CHARS = 500


@dataclass
class GroupResult(GroupOutcome):
    """A group decision's outcome: members changed, members left alone (and why), the row."""

    decision: GroupDecision | None = None
    proposed: int = 0
    queued: bool = False  # members left for the jobs that go on (GROUP_CHUNK at a time)


class StaleGroup(CurationError):
    """Someone decided or undid this group since it was shown: nothing was written."""


# --- membership and counts -------------------------------------------------------------------


def _version_sets(
    members: Mapping[uuid.UUID, tuple[GroupKey, str]],
) -> dict[uuid.UUID, tuple[GroupKey, str]]:
    """Return the members with a published DOI's key made its arXiv paper's (the version set:
    a preprint and its journal version are one work), as the catalogue knows them (arXiv
    metadata `doi`): one indexed lookup for the DOIs of the whole batch."""
    dois = {
        key.key.removeprefix("doi:") for key, _ in members.values() if key.key.startswith("doi:")
    }
    if not dois:
        return dict(members)
    preprints = dict(Paper.objects.filter(doi__in=sorted(dois)).values_list("doi", "arxiv_id"))
    moved = {}
    for pk, (key, text) in members.items():
        arxiv_id = (
            preprints.get(key.key.removeprefix("doi:")) if key.key.startswith("doi:") else None
        )
        moved[pk] = (GroupKey(f"arxiv:{arxiv_id}", key.kind), text) if arxiv_id else (key, text)
    return moved


def groups_join(*, members: Mapping[uuid.UUID, tuple[GroupKey, str]]) -> list[uuid.UUID]:
    """Put new observations in their groups: `members` maps each to its key and its text.

    Groups are made when missing (keys in sorted order, so concurrent imports never deadlock
    on them); the new members are added to their counts on commit. Return the observations that joined a group with a decision: the
    caller's transaction queues them for group_decisions_follow on commit.

    Call inside the audit context of the import that created the observations.
    """
    if not members:
        return []
    members = _version_sets(members)
    labels: dict[str, tuple[str, str]] = {}
    for key, text in members.values():
        labels.setdefault(key.key, (key.kind, text[:_LABEL_CHARS]))
    ReferenceGroup.objects.bulk_create(
        [
            ReferenceGroup(key=k, kind=kind, label=text)
            for k, (kind, text) in sorted(labels.items())
        ],
        ignore_conflicts=True,
    )
    groups = dict(ReferenceGroup.objects.filter(key__in=list(labels)).values_list("key", "pk"))
    created = ReferenceGroupMember.objects.bulk_create(
        [
            ReferenceGroupMember(observation_id=pk, group_id=groups[key.key])
            for pk, (key, _) in members.items()
        ]  # new references, or ones the backfill found without a group: never members yet
    )
    members_joined_on_commit(Counter(row.group_id for row in created))
    decided = set(
        ReferenceGroup.objects.filter(pk__in=groups.values(), decision__isnull=False).values_list(
            "pk", flat=True
        )
    )
    joined = [pk for pk, (key, _) in members.items() if groups[key.key] in decided]
    if joined:
        queue_on_commit(FOLLOW_TASK, [[str(pk) for pk in joined]])
    return joined


BACKFILL_BATCH = 2_000


@dataclass
class BackfillOutcome:
    """How far a backfill got: references grouped, and the last one read (to go on from)."""

    grouped: int = 0
    last: uuid.UUID | None = None


def groups_backfill(
    *, after: uuid.UUID | None = None, batch: int = BACKFILL_BATCH
) -> BackfillOutcome:
    """Group one batch of references read from a reference list that have no group yet (made
    before groups, or by a split), in primary-key order after `after`; return how far it got.

    One transaction per batch: a stopped backfill keeps what it did and goes on from `last`.
    """
    outcome = BackfillOutcome()
    rows = list(
        Observation.objects.filter(raw_text__isnull=False, group_membership__isnull=True)
        .filter(**({"pk__gt": after} if after is not None else {}))
        .order_by("pk")
        .values_list("pk", "raw_text", "normalized_text")[:batch]
    )
    if not rows:
        return outcome
    members = {
        pk: (reference_group_key(parse_reference(raw or ""), normalized), raw or "")
        for pk, raw, normalized in rows
    }
    with transaction.atomic():
        groups_join(members=members)
    outcome.grouped, outcome.last = len(rows), rows[-1][0]
    return outcome


# --- the decision ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Decision:
    """What a group decision writes on each member (the columns of write_decision)."""

    action: str
    value: str
    status: str
    resolver_source: str | None
    cited_paper: Paper | None
    work: dict[str, Any]
    no_canonical_record: bool = False


def _link_decision(identifier: str) -> _Decision:
    """Return the link an identifier names, checked as a single link is (refused if unknown)."""
    from ..resolution.dois import doi_check  # the resolution floor sits on top of this one

    cleaned = curated_identifier(identifier)
    if cleaned is None:
        raise CurationError(f"{identifier!r} is neither an arXiv id nor a DOI")
    scheme, value = cleaned
    if scheme == "arxiv":
        arxiv_id = canonical_arxiv_id(value) or value
        paper = Paper.objects.filter(arxiv_id=arxiv_id).first()
        if paper is None:
            raise CurationError(f"arXiv:{arxiv_id} is not in the catalogue or the records")
        source = ResolverSource.LOCAL_ARXIV if paper.in_catalogue else ResolverSource.PITH
        return _Decision(
            "link", f"arXiv:{arxiv_id}", ResolutionStatus.VERIFIED_EXACT, source, paper,
            {"work_pith_arxiv_id": paper.arxiv_id},
        )  # fmt: skip
    doi = canonical_doi(value) or value
    check = doi_check(doi)
    if not check.known:
        raise CurationError(f"DOI {doi} was not saved: {check.how}")
    if check.crossref_work is not None:
        store_crossref_works([check.crossref_work])
    paper = Paper.objects.filter(doi__iexact=doi).first()
    return _Decision(
        "link", f"doi:{doi}", ResolutionStatus.VERIFIED_EXACT, ResolverSource.DOI, paper,
        {"work_doi": doi},
    )  # fmt: skip


def group_decision_for(action: str, value: str = "") -> _Decision:
    """Return what a group decision of this kind writes, checked before anything is written."""
    if action == "link":
        return _link_decision(value)
    if action == "no_canonical_record":
        return _Decision(
            action, "", ResolutionStatus.UNRESOLVED, ResolverSource.RAW_FALLBACK, None, {}, True
        )
    if action == "set_state":
        if value in VERIFIED_STATUSES:
            raise CurationError("a verified state needs a link: link an arXiv id or a DOI instead")
        try:
            status = ResolutionStatus(value)
        except ValueError:
            raise CurationError(f"{value!r} is not a state") from None
        return _Decision(action, status.value, status, None, None, {})
    raise CurationError(f"{action!r} is not a group decision (one of {', '.join(GROUP_ACTIONS)})")


def _apply(
    member: Observation, decision: _Decision, record: GroupDecision, actor: Actor, reason: str
) -> GroupDecisionMember:
    """Write the decision on one locked member; return the row that remembers it for Undo."""
    before = member.revision
    previous = getattr(member, "resolution", None)
    member.no_canonical_record = decision.no_canonical_record
    write_decision(
        member,
        status=decision.status,
        # A state keeps the source the reference had, as a single set_state does.
        resolver_source=decision.resolver_source
        if decision.action != "set_state"
        else (previous.resolver_source if previous else None),
        cited_paper=decision.cited_paper,
        action=f"group_{decision.action}",
        actor=actor,
        reason=reason,
        now=timezone.now(),
        work=decision.work,
        extra_evidence={"group_decision": record.pk, "group": record.group.key},
        batched=True,  # notices followed and the group recounted once, for all members
    )
    return GroupDecisionMember(
        decision=record,
        observation=member,
        state=GroupDecisionMember.APPLIED,
        before_revision=before,
        after_revision=member.revision,
        evidence={"group_decision": record.pk},
        created_at=timezone.now(),
    )


def _locked_group(group_id: int, expected_revision: int) -> ReferenceGroup:
    group = ReferenceGroup.objects.select_for_update().filter(pk=group_id).first()
    if group is None:
        raise CurationError(f"group {group_id} does not exist")
    if group.revision != expected_revision:
        latest = group.decisions.order_by("-pk").first()
        who = "someone"
        if latest is not None:
            undone = bool(latest.undone_by)
            by = person({"actor": latest.undone_by} if undone else latest.metadata)
            who = f"{by} ({'undo of ' if undone else ''}{latest} because “{latest.reason}”)"
        raise StaleGroup(
            f"this group was changed by {who}; you saw revision {expected_revision}, it is now "
            f"{group.revision}. Reload and decide again."
        )
    return group


def _settle(group: ReferenceGroup, decision: GroupDecision | None) -> None:
    """Give the group its standing decision (None: undone), a new revision, and its counts."""
    group.decision = decision
    group.revision += 1
    group.save(update_fields=["decision", "revision"])
    groups_recount([group.pk])


def group_decide(
    *,
    group_id: int,
    action: str,
    value: str = "",
    expected_revision: int,
    actor: Actor,
    reason: str,
) -> GroupResult:
    """Apply one decision to every undecided member of a group.

    `expected_revision` is the group's revision the curator was shown: a group decided or
    undone since is refused whole. The link is checked first (outside the transaction: a DOI
    check may ask Crossref); nothing is written when it is refused.
    """
    decision = group_decision_for(action, value)
    return _group_decide(group_id, decision, expected_revision, actor, reason)


# A web request decides (or undoes) this many members in its own transaction; the rest go on in
# jobs of this many each, queued on commit. Measured (bench/bench_groups.py): about 10-30 ms a
# member on a loaded two-core machine, so a group cited by thousands of papers would hold a
# request, and the group's row lock, for a minute.
GROUP_CHUNK = 100
CONTINUE_TASK = "curation.tasks.group_decision_continue"
UNDO_CONTINUE_TASK = "curation.tasks.group_undo_continue"
_SKIPPED_NAMED = 20


@transaction.atomic
def _group_decide(
    group_id: int, decision: _Decision, expected_revision: int, actor: Actor, reason: str
) -> GroupResult:
    result = GroupResult()
    with audited(actor, reason):
        group = _locked_group(group_id, expected_revision)
        if group.decision_id is not None:
            raise StaleGroup("this group is decided already: undo that decision first")
        if _undo_going_on(group):
            raise StaleGroup("the undo of this group's last decision is still going on: reload")
        record = GroupDecision.objects.create(
            group=group,
            action=decision.action,
            value=decision.value,
            reason=reason.strip(),
            actor=actor.name,
            user_id=actor.user_id,
            decided_at=timezone.now(),
        )
        result.skipped = _decided_on_their_own(group)
        _settle(group, record)
        _decide_chunk(group, record, decision, actor, reason, result)
    result.decision = record
    return result


def _decided_on_their_own(group: ReferenceGroup) -> list[str]:
    """Return the live members a curator decided on their own (left alone), the first named."""
    pinned = Observation.objects.filter(
        group_membership__group=group, retired_at__isnull=True, pinned=True
    ).select_related("paper")
    named = [
        f"{label(member)}: decided on its own by {describe_change(last_change(member.pk))}"
        for member in pinned.order_by("pk")[:_SKIPPED_NAMED]
    ]
    more = pinned.count() - len(named) if len(named) == _SKIPPED_NAMED else 0
    return [*named, f"and {more} more decided on their own"] if more else named


def _decide_chunk(
    group: ReferenceGroup,
    record: GroupDecision,
    decision: _Decision,
    actor: Actor,
    reason: str,
    result: GroupResult,
) -> None:
    """Decide the next GROUP_CHUNK undecided members (primary-key order, locked in that order);
    queue the next chunk on commit when more are left."""
    members = list(
        Observation.objects.select_for_update(of=("self",))
        .select_related("paper", "resolution")
        .filter(group_membership__group=group, retired_at__isnull=True, pinned=False)
        # One proposed this decision (it joined with other text) waits for a curator.
        .exclude(pk__in=record.members.values("observation_id"))
        .order_by("pk")[: GROUP_CHUNK + 1]
    )
    rows = [_apply(member, decision, record, actor, reason) for member in members[:GROUP_CHUNK]]
    GroupDecisionMember.objects.bulk_create(rows)
    standing_notices_follow_links([row.observation_id for row in rows])
    groups_recount([group.pk])
    result.done += len(rows)
    if len(members) > GROUP_CHUNK:
        result.queued = True
        queue_on_commit(CONTINUE_TASK, [record.pk])


def group_decision_continue(*, decision_id: int, task_id: str | None = None) -> GroupResult:
    """Decide the next chunk of a group decision's members, as its curator, for the same reason.

    Idempotent: the members left are the undecided ones, so a re-delivered job decides what is
    left, and one whose decision was undone meanwhile does nothing.
    """
    result = GroupResult()
    with transaction.atomic():
        record = GroupDecision.objects.select_related("group").get(pk=decision_id)
        # Who decided stays the curator; where from is the job that carries it on.
        actor = Actor(record.actor, ChangeSource.TASK, record.user_id, task_id)
        with audited(actor, record.reason):
            group = ReferenceGroup.objects.select_for_update().get(pk=record.group_id)
            if group.decision_id != record.pk:
                return result  # undone meanwhile: nothing more to decide
            decision = group_decision_for(record.action, record.value)
            _decide_chunk(group, record, decision, actor, record.reason, result)
    result.decision = record
    return result


def _undo_going_on(group: ReferenceGroup) -> bool:
    """Return whether an undone decision of this group still has members to revert."""
    return GroupDecisionMember.objects.filter(
        decision__group=group,
        decision__undone_at__isnull=False,
        state=GroupDecisionMember.APPLIED,
    ).exists()


@transaction.atomic
def group_undo(
    *,
    group_id: int,
    expected_revision: int,
    actor: Actor,
    reason: str = UNDO_REASON,
) -> GroupResult:
    """Undo a group's decision: every member it changed goes back to its revision before.

    The decision is marked undone at once (members joining later no longer get it, a chunk
    still queued decides nothing more); the members go back GROUP_CHUNK at a time, the rest in
    jobs queued on commit. A member changed since (by anything but a notice check) keeps what
    it has now and is reported.
    """
    result = GroupResult()
    with audited(actor, reason):
        group = _locked_group(group_id, expected_revision)
        record = group.decision
        if record is None:
            raise CurationError("this group has no decision to undo")
        record.undone_at = timezone.now()
        record.undone_by = actor.name
        record.save(update_fields=["undone_at", "undone_by"])
        _settle(group, None)
        _undo_chunk(group, record, actor, reason, result)
    result.decision = record
    return result


def _undo_chunk(
    group: ReferenceGroup, record: GroupDecision, actor: Actor, reason: str, result: GroupResult
) -> None:
    """Revert the next GROUP_CHUNK members the decision applied to; queue the rest on commit."""
    rows = list(
        record.members.filter(state=GroupDecisionMember.APPLIED).order_by("observation_id")[
            : GROUP_CHUNK + 1
        ]
    )
    applied = {row.observation_id: row for row in rows[:GROUP_CHUNK]}
    for member in lock_in_order(Q(pk__in=list(applied))):
        row = applied[member.pk]
        try:
            current = lock(member, row.after_revision or 0)
        except StaleRevision as stale:
            result.skipped.append(f"{label(member)}: {stale}")
            row.state = GroupDecisionMember.KEPT
            continue
        observation_revert_to_revision(
            observation=current,
            to_revision=row.before_revision,
            expected_revision=current.revision,
            actor=actor,
            reason=reason,
        )
        row.state = GroupDecisionMember.UNDONE
        result.done += 1
    GroupDecisionMember.objects.bulk_update(list(applied.values()), ["state"])
    groups_recount([group.pk])
    if len(rows) > GROUP_CHUNK:
        result.queued = True
        queue_on_commit(UNDO_CONTINUE_TASK, [record.pk])


def group_undo_continue(*, decision_id: int, task_id: str | None = None) -> GroupResult:
    """Revert the next chunk of an undone group decision's members, as the curator who undid it.

    Idempotent: the members left are those still marked applied.
    """
    result = GroupResult()
    with transaction.atomic():
        record = GroupDecision.objects.select_related("group").get(pk=decision_id)
        actor = Actor(record.undone_by, ChangeSource.TASK, None, task_id)
        with audited(actor, UNDO_REASON):
            group = ReferenceGroup.objects.select_for_update().get(pk=record.group_id)
            if record.undone_at is None:
                return result
            _undo_chunk(group, record, actor, UNDO_REASON, result)
    result.decision = record
    return result


# --- members that join a decided group -------------------------------------------------------


def group_decisions_follow(*, observation_ids: Collection[str], actor: Actor) -> GroupResult:
    """Give new members of decided groups the group's decision (SPEC issue 41, item 1).

    Applied, with the group decision's reason and evidence naming it, when the member's text
    is identical to a member the decision was applied to; otherwise proposed (a
    GroupDecisionMember row a curator confirms from the group page). Idempotent: a member
    already pinned, or already given this decision, is left as it is. One member that fails
    is reported; the others go on.
    """
    result = GroupResult()
    memberships = (
        ReferenceGroupMember.objects.filter(
            observation_id__in=list(observation_ids), group__decision__isnull=False
        )
        .select_related("group__decision")
        .order_by("observation_id")
    )
    for membership in memberships:
        record = membership.group.decision
        assert record is not None  # filtered on
        try:
            _follow_one(membership.observation_id, record, actor, result)
        except CurationError as exc:  # a batch never dies on one item
            result.skipped.append(f"observation {membership.observation_id}: {exc}")
    return result


@transaction.atomic
def _follow_one(
    observation_id: uuid.UUID, record: GroupDecision, actor: Actor, result: GroupResult
) -> None:
    reason = f"group decision {record.pk}: {record.reason}"
    with audited(actor, reason):
        rows = lock_in_order(Q(pk=observation_id))
        if not rows:
            return
        member = rows[0]
        given = GroupDecisionMember.objects.filter(decision=record, observation=member).exists()
        if given or member.pinned or member.retired_at is not None:
            return
        identical = GroupDecisionMember.objects.filter(
            decision=record,
            state=GroupDecisionMember.APPLIED,
            observation__normalized_text=member.normalized_text,
        ).exists()
        if identical:
            decision = group_decision_for(record.action, record.value)
            _apply(member, decision, record, actor, reason).save()
            standing_notices_follow_links([member.pk])
            result.done += 1
        else:
            GroupDecisionMember.objects.create(
                decision=record,
                observation=member,
                state=GroupDecisionMember.PROPOSED,
                before_revision=member.revision,
                evidence={
                    "group_decision": record.pk,
                    "why": "joined the group with other text than the members decided",
                },
                created_at=timezone.now(),
            )
            result.proposed += 1
        recount_on_commit([record.group_id])
