"""The history context every write to curated data carries: who, where from, why, which task.

pghistory sends the context to PostgreSQL as transaction-local settings
(`pghistory.context_id`, `pghistory.context_metadata`) in front of each statement, and the history
triggers attach them to every event. Two things pghistory leaves to us:

- Leaving a block does not clear those settings, so inside one outer transaction a later write
  would still be recorded under the finished block's context. `audited()` clears them on the way
  out, so such a write has no context and the event tables' check constraint refuses it.
- A nested `pghistory.context` merges into the outer one (same id, metadata overwritten), so the
  inner reason would end up on the outer block's events. A nested `audited()` with another actor
  or reason gets a context of its own and gives the outer one back when it ends.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pghistory
from django.db import connection
from pghistory import config as pghistory_config
from pghistory import runtime as pghistory_runtime
from psycopg.pq import TransactionStatus

from .states import ChangeSource


@dataclass(frozen=True)
class Actor:
    """Who is changing curated data: a user, or a task or command by name."""

    name: str
    source: ChangeSource
    user_id: int | None = None
    task_id: str | None = None

    @classmethod
    def command(cls, name: str) -> Actor:
        """Return the actor for a management command."""
        return cls(name=f"command:{name}", source=ChangeSource.COMMAND)

    @classmethod
    def importer(cls, name: str) -> Actor:
        """Return the actor for an import command."""
        return cls(name=f"command:{name}", source=ChangeSource.IMPORT)

    @classmethod
    def task(cls, name: str, task_id: str | None) -> Actor:
        """Return the actor for a Celery task run."""
        return cls(name=f"task:{name}", source=ChangeSource.TASK, task_id=task_id)

    @classmethod
    def for_task(cls, task: Any) -> Actor:
        """Return the actor for the running Celery task (its name and task id)."""
        return cls.task(task.name, task.request.id)

    @classmethod
    def for_user(cls, user: Any, source: ChangeSource) -> Actor:
        """Return the actor for a signed-in user acting through the admin or the API."""
        return cls(name=f"user:{user.get_username()}", source=source, user_id=user.pk)


class MissingReason(ValueError):
    """A change to curated data was attempted without a reason."""


@contextmanager
def audited(actor: Actor, reason: str) -> Iterator[None]:
    """Attach actor and reason to every history event written inside the block.

    Outside every block, writes to curated data have no context and are refused, even inside an
    outer transaction that a block ran in. A nested block with the same actor and reason joins
    the outer context; with another actor or reason it is a context of its own.
    """
    if not reason or not reason.strip():
        raise MissingReason("every change to curated data needs a reason")
    metadata = {
        "actor": actor.name,
        "source": actor.source.value,
        "reason": reason.strip(),
        "user": actor.user_id,
        "task_id": actor.task_id,
    }
    outer = _active_context()
    if outer is None:
        with pghistory.context(**metadata):
            try:
                yield
            finally:
                _send_to_database(None)
    elif metadata.items() <= outer.metadata.items():
        yield  # the same change (e.g. a service called by a service): one context
    else:
        # pghistory's tracker is module state, not API; tests/curation/test_audit_context.py
        # pins the behaviour, so a pghistory upgrade that changes it fails there.
        pghistory_runtime._tracker.value = pghistory_runtime.Context(
            id=uuid.uuid4(), metadata=metadata
        )
        try:
            yield
        finally:
            pghistory_runtime._tracker.value = outer
            _send_to_database(outer)


def _active_context() -> Any:
    """Return pghistory's context for this thread, or None outside every block."""
    return getattr(pghistory_runtime._tracker, "value", None)


def _send_to_database(context: Any) -> None:
    """Make the open transaction's history settings name `context` (None: no context).

    Only an open, healthy transaction keeps the settings past one statement. A failed one is
    rolled back to a savepoint taken before this block (any savepoint taken inside has been
    rolled back by now), where the settings held the value they had before the block.
    """
    raw = connection.connection
    if raw is None or connection.needs_rollback:
        return
    if raw.info.transaction_status != TransactionStatus.INTRANS:
        return
    if context is None:
        context_id, metadata = "", ""
    else:
        context_id = str(context.id)
        metadata = json.dumps(context.metadata, cls=pghistory_config.json_encoder())
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('pghistory.context_id', %s, true), "
            "set_config('pghistory.context_metadata', %s, true)",
            [context_id, metadata],
        )
