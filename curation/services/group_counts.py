"""The counts of reference groups (curation.models.ReferenceGroup), kept by every write that
changes what they count: a reference joining, decided, retired, unpinned or reverted.

Below the decision services (observations, observation_groups, reference_groups), which all
call it, so none of them imports another to keep the group queue right.

Counted after the write commits, in a transaction of its own: a write that holds a member's
row lock and then waited for its group's row could deadlock with a group decision, which
holds the group's row and then locks its members. The counts are derived (the members are
the truth), so for a moment they may lag what was just committed.
"""

from __future__ import annotations

from collections.abc import Collection

from django.db import connection, transaction

from ..models import Observation, ReferenceGroup, ReferenceGroupMember

_RECOUNT = """
UPDATE curation_referencegroup g
   SET size = c.size, undecided = c.undecided, noticed = c.noticed, counted_at = now()
  FROM (SELECT m.group_id,
               count(*) FILTER (WHERE o.retired_at IS NULL) AS size,
               count(*) FILTER (WHERE o.retired_at IS NULL AND NOT o.pinned
                                  AND NOT o.no_canonical_record) AS undecided,
               count(*) FILTER (WHERE o.retired_at IS NULL AND n.events <> '[]'::jsonb) AS noticed
          FROM curation_referencegroupmember m
          JOIN curation_observation o ON o.id = m.observation_id
          LEFT JOIN curation_standingnotice n ON n.observation_id = o.id
         WHERE m.group_id = ANY(%s)
         GROUP BY m.group_id) c
 WHERE g.id = c.group_id
"""


def _lock_in_order(ids: list[int]) -> None:
    """Lock these group rows in id order (an UPDATE alone locks in whatever order it scans)."""
    list(ReferenceGroup.objects.select_for_update().filter(pk__in=ids).order_by("pk").values("pk"))


def groups_recount(group_ids: Collection[int]) -> None:
    """Recount the members of these groups (live, undecided, with notices).

    The rows are locked in id order first: two imports touching the same popular groups then
    wait for each other instead of deadlocking (an UPDATE locks in whatever order it scans).
    """
    ids = sorted(set(group_ids))
    if not ids:
        return
    with transaction.atomic():
        _lock_in_order(ids)
        with connection.cursor() as cursor:
            cursor.execute(_RECOUNT, [ids])


class _Recount:
    """The one recount a transaction queues: later writes in it add their groups to it."""

    def __init__(self, ids: set[int]) -> None:
        self.ids = ids
        self.ran = False

    def __call__(self) -> None:
        self.ran = True
        groups_recount(self.ids)


def recount_on_commit(group_ids: Collection[int]) -> None:
    """Recount these groups once the current transaction commits (at once outside one).

    One recount per transaction, however many writes ask: an Undo of 200 members would
    otherwise count the same group 200 times after it commits. (Django drops the callbacks
    of a transaction or savepoint that rolls back; a group added here to a recount queued in
    a savepoint that then rolls back is counted at the next write to it.)
    """
    ids = set(group_ids)
    if not ids:
        return
    connection_ = transaction.get_connection()
    if connection_.in_atomic_block:
        for _, queued, _ in connection_.run_on_commit:
            if isinstance(queued, _Recount) and not queued.ran:
                queued.ids |= ids
                return
    transaction.on_commit(_Recount(ids))


def _add_members(joined: dict[int, int]) -> None:
    """Count new members in (live, undecided, without notices yet): rows locked in id order."""
    ids = sorted(joined)
    with transaction.atomic():
        _lock_in_order(ids)
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE curation_referencegroup g SET size = g.size + j.n, "
                "undecided = g.undecided + j.n, counted_at = now() "
                "FROM unnest(%s::bigint[], %s::int[]) AS j(id, n) WHERE g.id = j.id",
                [ids, [joined[i] for i in ids]],
            )


def members_joined_on_commit(joined: dict[int, int]) -> None:
    """Add new members to their groups' counts once the transaction commits.

    An increment, not a recount: a work cited by tens of thousands of papers gains a member
    with each import, and counting all its members each time would grow with the group.
    """
    if joined:
        transaction.on_commit(lambda: _add_members(dict(joined)))


def recount_groups_of(observations: Collection[Observation]) -> None:
    """Recount the groups of these observations once the current transaction commits."""
    ids = ReferenceGroupMember.objects.filter(
        observation_id__in=[o.pk for o in observations]
    ).values_list("group_id", flat=True)
    recount_on_commit(list(ids))
