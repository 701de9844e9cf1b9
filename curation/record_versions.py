"""Record versions bumped up front, in paper order, by writes that touch many records at once.

The triggers of migration 0001 bump the records a statement changes, locking their version rows
in paper order within that statement; a transaction of several statements (a resolver chunk: its
resolutions, then its observations, then their notices; a notice refresh: notices, then
revisions) takes them in several orders. Two such transactions sharing a record (a popular cited
paper, the citing paper of a large reference list) then deadlock. A transaction that bumps every
record it is about to change first, in one statement and in paper order, takes all its version
rows in one global order; the triggers' bumps that follow find them held already.

Here, below every app, and not in curation/record/: the resolution and notice services call it,
and the record (which reads what they decide) sits above them.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection


def records_bumped_first(paper_ids: Iterable[int | None]) -> None:
    """Bump the records of these papers now, in paper order (inside the writing transaction,
    before its statements that change them: only papers they do change, or a record would show
    a change it did not have)."""
    ids = sorted({paper_id for paper_id in paper_ids if paper_id is not None})
    if ids:
        with connection.cursor() as cursor:
            cursor.execute("SELECT record_bump_versions(%s::bigint[])", [ids])
