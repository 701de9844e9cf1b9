"""Reads on a PostgreSQL streaming replica, with read-your-writes (README "Read replica").

With REPLICA_DATABASE_URL set, settings add a `replica` alias, ReplicaRouter and
ReadRoutingMiddleware. A read goes to the replica only when every rule below allows it; anything
else goes to the primary (`default`):

- only inside a web request (ReadRoutingMiddleware sets the request's ReadContext): workers, beat
  and management commands have none, and they read their own writes;
- only a GET/HEAD/OPTIONS request without a session cookie: curators and staff in the admin (and
  any request that writes) read the primary, so what they just saved is what they see;
- never inside an atomic block, never after the request wrote through the ORM, never the tables
  of accounts, sessions and tokens (a token just issued must authenticate at once);
- an API client that wrote (an unsafe request with an Authorization header) left the primary's
  WAL position at that moment under a digest of its header (REPLICA_PIN_SECONDS): its reads use
  the replica only once the replica has replayed past that position;
- otherwise (anonymous readers, token clients with no recent write) the replica's lag must be
  within REPLICA_MAX_LAG_SECONDS;
- a replica that fails to answer opens a circuit breaker (citerec/outage.py): the primary serves
  every read for REPLICA_BREAKER_SECONDS, then a background probe decides. A hung replica is
  waited on once (its connect timeout), not once per request. One that fails in the middle of a
  request has that (safe) request served again from the primary.

The replica's state is asked once per request, at the request's first read that could use it.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Callable
from contextlib import nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connections
from django.http import HttpRequest, HttpResponse

from .outage import CircuitBreaker
from .statement_timeout import cancelled_statement

PRIMARY = "default"
REPLICA = "replica"

# Accounts, sessions, lockouts and tokens: a login, a lockout or a token issued a moment ago on
# the primary must count at once, and these are small key lookups the primary answers cheaply.
PRIMARY_ONLY_APPS = frozenset({"auth", "sessions", "authtoken", "axes", "admin", "api"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

_log = logging.getLogger("citerec.replica")

# Replayed WAL position (bytes), the lag in seconds (0 when it has replayed all it received),
# or NULLs when the server is not a replica in recovery (a promoted one is not a replica).
STATUS_SQL = """
SELECT pg_is_in_recovery(),
       pg_last_wal_replay_lsn() - '0/0'::pg_lsn,
       CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
            ELSE EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp())
       END
"""
PRIMARY_LSN_SQL = "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn"


@dataclass(frozen=True)
class ReplicaStatus:
    """What the replica has replayed (a WAL position in bytes) and how far behind it is."""

    replayed: int
    lag_seconds: float


@dataclass
class ReadContext:
    """The routing facts of one web request (ReadRoutingMiddleware makes it)."""

    may_use_replica: bool  # a safe method with no session cookie
    client: str | None = None  # digest of the Authorization header, None for anonymous
    wrote: bool = False  # an ORM write happened in this request
    decided: bool | None = None  # the replica's answer, asked once per request
    replica_lost: bool = False  # the replica failed after it answered: serve again from the primary


_current: ContextVar[ReadContext | None] = ContextVar("citerec_read_context", default=None)


def client_key(authorization: str) -> str:
    """Return the key naming an API client by its credentials (never the credentials)."""
    return hashlib.sha256(authorization.encode()).hexdigest()


def _pin_key(client: str) -> str:
    return f"replica-pin:{client}"


# --- The replica's state, behind a breaker ---------------------------------------------


class NotReplaying(DatabaseError):
    """The replica's server is not in recovery (promoted, or a primary named by mistake)."""


def _query_status() -> ReplicaStatus:
    """Ask the replica what it has replayed; raise when it is down or not a replica."""
    with connections[REPLICA].cursor() as cursor:
        cursor.execute(STATUS_SQL)
        in_recovery, replayed, lag = cursor.fetchone()
    if not in_recovery or replayed is None:
        # Skipped like a server that is down: the breaker logs it once, then probes it.
        raise NotReplaying("the replica database is not replaying a primary's WAL")
    # No lag known (nothing replayed since it started, WAL waiting): too far behind to use.
    return ReplicaStatus(
        replayed=int(replayed), lag_seconds=math.inf if lag is None else float(lag)
    )


def _probe() -> None:
    """Connect to the replica afresh (the breaker's background probe, in its own thread)."""
    try:
        _query_status()
    finally:
        connections[REPLICA].close()


_breaker = CircuitBreaker("read replica", cool_off=settings.REPLICA_BREAKER_SECONDS, probe=_probe)


def replica_status() -> ReplicaStatus | None:
    """Return the replica's status, or None when it is down, skipped or not a replica."""
    if not _breaker.allows():
        return None
    try:
        return _query_status()
    except DatabaseError as error:
        _breaker.failed(error)
        try:
            connections[REPLICA].close()
        except DatabaseError:
            pass  # a connection that never opened, or died: nothing left to close
        return None


def reset_breaker() -> None:
    """Close the breaker (tests: each starts with a replica not known to be down)."""
    _breaker.reset()


# --- Decisions -------------------------------------------------------------------------


def _replica_fresh_enough(context: ReadContext) -> bool:
    status = replica_status()
    if status is None:
        return False
    written_at = cache.get(_pin_key(context.client)) if context.client else None
    if written_at is not None:
        return status.replayed >= int(written_at)
    return status.lag_seconds <= settings.REPLICA_MAX_LAG_SECONDS


def reads_from_replica(model: type[Any] | None) -> bool:
    """Return whether a read of model, now, may be served by the replica."""
    context = _current.get()
    if context is None or not context.may_use_replica or context.wrote:
        return False
    if model is not None and model._meta.app_label in PRIMARY_ONLY_APPS:
        return False
    if connections[PRIMARY].in_atomic_block:
        return False
    if context.decided is None:
        context.decided = _replica_fresh_enough(context)
    return context.decided


def read_alias() -> str:
    """Return the alias for a read in SQL (no model), by the same rules as the router's reads.

    A request that reads a record's version on the primary and builds the record on a replica
    behind it would keep the old record under the new version's cache key: a cursor that reads
    what the ORM reads must ask here, not take the primary's connection.
    """
    if REPLICA not in connections.settings:
        return PRIMARY
    return REPLICA if reads_from_replica(None) else PRIMARY


class ReplicaRouter:
    """Django database router: the rules of this module's docstring."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str:
        """Return the replica when reads_from_replica allows it, else the primary."""
        return REPLICA if reads_from_replica(model) else PRIMARY

    def db_for_write(self, model: type[Any], **hints: Any) -> str:
        """Return the primary, and send the rest of the request's reads there too."""
        context = _current.get()
        if context is not None:
            context.wrote = True
        return PRIMARY

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        """Allow any relation: both aliases hold the same database."""
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        """Migrate the primary only: the replica replays it."""
        return db == PRIMARY


# --- The request's context ---------------------------------------------------------------


def _remember_write(client: str) -> None:
    """Keep the primary's WAL position after this client's write, for its next reads."""
    try:
        with connections[PRIMARY].cursor() as cursor:
            cursor.execute(PRIMARY_LSN_SQL)
            (position,) = cursor.fetchone()
    except DatabaseError:
        _log.exception("could not read the primary's WAL position after a write")
        return
    cache.set(_pin_key(client), int(position), timeout=settings.REPLICA_PIN_SECONDS)


def _watch_replica(context: ReadContext) -> Callable[..., Any]:
    """Return an execute wrapper for the replica's connection that notes a replica lost mid-way."""

    def watched(execute: Callable[..., Any], sql: str, params: Any, many: bool, db: Any) -> Any:
        try:
            return execute(sql, params, many, db)
        except DatabaseError as error:
            # A statement cut by the web time limit is the request's own slowness, not an outage;
            # and a failed status question is handled where it is asked.
            if context.decided and not cancelled_statement(error):
                context.replica_lost = True
                _breaker.failed(error)
            raise

    return watched


class ReadRoutingMiddleware:
    """Give the request its ReadContext, and remember a token client's write when it ends.

    A safe request whose replica failed after it had answered (a restart, a network cut) is
    served once more, from the primary: the replica down never fails a reader's request.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        authorization = request.headers.get("Authorization", "")
        context = ReadContext(
            may_use_replica=request.method in SAFE_METHODS
            and settings.SESSION_COOKIE_NAME not in request.COOKIES,
            client=client_key(authorization) if authorization else None,
        )
        response = self._serve(request, context)
        if response is None or (context.replica_lost and response.status_code >= 500):
            response = self._serve(request, ReadContext(may_use_replica=False))
            assert response is not None  # nothing reads the replica this time
        # After the view: its transactions have committed, so the position covers its writes.
        # Whatever the status: a refused request wrote nothing, but one that failed late may have.
        if context.client and request.method not in SAFE_METHODS:
            _remember_write(context.client)
        return response

    def _serve(self, request: HttpRequest, context: ReadContext) -> HttpResponse | None:
        """Return the response under context; None when the replica failed under the view."""
        token = _current.set(context)
        watching = (
            connections[REPLICA].execute_wrapper(_watch_replica(context))
            if context.may_use_replica and REPLICA in connections.settings
            else nullcontext()
        )
        try:
            with watching:
                return self.get_response(request)
        except DatabaseError:
            if context.replica_lost:
                return None
            raise
        finally:
            _current.reset(token)
