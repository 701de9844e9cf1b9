"""The history context every write to curated data carries: who, where from, why, which task.

The context goes to PostgreSQL as transaction-local settings (`pghistory.context_id`,
`pghistory.context_metadata`) in front of each writing statement, and the history triggers attach
it to every event. Three things pghistory leaves to us:

- A context must be the application's, not any SQL session's: whoever holds the runtime role's
  password could set those settings and write as "user:alice". So each statement also carries a
  signature (`curation.history.context_signature`) made with a key derived from SECRET_KEY and
  bound to a secret of this connection, and the database refuses a context from the runtime
  role without a valid one (README "Database roles"). `audited()` is the only thing that signs.
- Leaving a block does not clear those settings, so inside one outer transaction a later write
  would still be recorded under the finished block's context. `audited()` clears them on the way
  out, so such a write has no context and the event tables' check constraint refuses it.
- A nested `pghistory.context` merges into the outer one (same id, metadata overwritten), so the
  inner reason would end up on the outer block's events. A nested `audited()` with another actor
  or reason gets a context of its own and gives the outer one back when it ends.
"""

from __future__ import annotations

import json
import secrets
import uuid
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

import psycopg
from django.db import connection, transaction
from pghistory import config as pghistory_config
from pghistory import runtime as pghistory_runtime
from psycopg.pq import TransactionStatus

from .history import SESSION_SETTING, SIGNATURE_SETTING, context_signature
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
    if outer is not None and metadata.items() <= outer.metadata.items():
        yield  # the same change (e.g. a service called by a service): one context
        return
    # pghistory's tracker is module state, not API; tests/curation/test_audit_context.py
    # pins the behaviour, so a pghistory upgrade that changes it fails there. A
    # `pghistory.context(key=...)` inside the block adds to this metadata, as pghistory does.
    pghistory_runtime._tracker.value = pghistory_runtime.Context(id=uuid.uuid4(), metadata=metadata)
    try:
        with _signing():
            yield
    finally:
        if outer is None:
            del pghistory_runtime._tracker.value
        else:
            pghistory_runtime._tracker.value = outer
        _send_to_database(outer)


def _active_context() -> Any:
    """Return pghistory's context for this thread, or None outside every block."""
    return getattr(pghistory_runtime._tracker, "value", None)


def _signing() -> Any:
    """Sign the context in front of every writing statement, unless an outer block already does."""
    if _inject_signed_context in connection.execute_wrappers:
        return nullcontext()
    return connection.execute_wrapper(_inject_signed_context)


def _context_settings(context: Any) -> tuple[str, str, str]:
    """Return the id, metadata and signature texts that name `context` in the database."""
    context_id = str(context.id)
    metadata = json.dumps(context.metadata, cls=pghistory_config.json_encoder())
    return context_id, metadata, context_signature(_history_session(), context_id, metadata)


def _inject_signed_context(
    execute: Callable[..., Any], sql: Any, params: Any, many: bool, context: dict[str, Any]
) -> Any:
    """Put the signed context in front of a writing statement (pghistory's injection, signed).

    The same statements as pghistory's own wrapper get it (not reads, not named cursors, not
    an aborted transaction), in the same round trip as the statement (a statement run many
    times: just before it).
    """
    tracked = _active_context()
    if tracked is None or not pghistory_runtime._can_inject_variable(context["cursor"], sql):
        return execute(sql, params, many, context)
    values = _context_settings(tracked)
    if many:
        # A statement run many times is prepared, and a prepared statement holds one command:
        # the context goes first, in one transaction with it.
        with transaction.atomic(using=context["connection"].alias):
            context["cursor"].cursor.execute(_SET_CONTEXT, values)
            return execute(sql, params, many, context)
    is_bytes = isinstance(sql, bytes)
    text = sql.decode() if is_bytes else sql
    if isinstance(params, dict):
        params = {**params, **dict(zip(_NAMES, values, strict=True))}
        prefix = _set_context_sql(*(f"%({name})s" for name in _NAMES))
    else:  # psycopg does not mix named and positional parameters: keep the statement's kind
        params = (*values, *(params or ()))
        prefix = _SET_CONTEXT
    text = f"{prefix}; {text}"
    return pghistory_runtime._execute_wrapper(
        execute(text.encode() if is_bytes else text, params, many, context)
    )


def _set_context_sql(context_id: str, metadata: str, signature: str) -> str:
    """Return the statement that sets the transaction's history settings from these placeholders."""
    return (
        f"SELECT set_config('pghistory.context_id', {context_id}, true), "
        f"set_config('pghistory.context_metadata', {metadata}, true), "
        f"set_config('{SIGNATURE_SETTING}', {signature}, true)"
    )


_SET_CONTEXT = _set_context_sql("%s", "%s", "%s")
_NAMES = ("citerec__context_id", "citerec__context_metadata", "citerec__context_signature")


@dataclass
class _Session:
    """A connection's history session secret, and whether the database keeps it for good."""

    secret: str
    kept: bool = False


# By psycopg connection: a new connection (reconnect, CONN_MAX_AGE) gets a new secret.
_sessions: weakref.WeakKeyDictionary[Any, _Session] = weakref.WeakKeyDictionary()


def _history_session() -> str:
    """Return this connection's session secret, giving it to the database first when needed.

    A session setting set inside a transaction is undone if that transaction (or a savepoint
    around it) rolls back, so until one holding it has committed it is given again before each
    signed statement; set outside a transaction it is kept at once.
    """
    connection.ensure_connection()
    raw = connection.connection
    session = _sessions.get(raw)
    if session is None:
        session = _sessions[raw] = _Session(secrets.token_hex(32))
    if session.kept:
        return session.secret
    # Server-side binding (psycopg's plain Cursor, not Django's client-side one): the secret
    # travels as a parameter and never shows in pg_stat_activity's query text.
    with psycopg.Cursor(raw) as cursor:
        cursor.execute(f"SELECT set_config('{SESSION_SETTING}', %s, false)", [session.secret])
    if raw.info.transaction_status == TransactionStatus.IDLE:
        session.kept = True
    elif connection.in_atomic_block:
        transaction.on_commit(lambda: _keep_if_committed(session))
    return session.secret


def _keep_if_committed(session: _Session) -> None:
    """Mark the secret kept once the transaction that set it has committed.

    Django runs commit hooks after the outermost block; a test's captured hooks run inside it,
    where nothing has committed yet.
    """
    session.kept = not connection.in_atomic_block


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
    values = ("", "", "") if context is None else _context_settings(context)
    with connection.cursor() as cursor:
        cursor.execute(_SET_CONTEXT, values)
