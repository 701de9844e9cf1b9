"""History tracking for curated models: one helper so every app tracks the same way.

Also the signature a history context carries: the database accepts a context from the runtime
role only with an HMAC-SHA256 of (this connection's session secret, context id, metadata) made
with a key derived from SECRET_KEY (README "Database roles"). `curation.audit` signs;
`curation.db_roles` gives the database the key; the check is `_pgh_attach_context()`
(curation/migrations/0010_history_written_by_owner_functions.py).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

import pghistory
from django.apps import apps
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.encoding import force_bytes

# The transaction-local settings the history triggers read, besides pghistory's own two
# (`pghistory.context_id`, `pghistory.context_metadata`).
SIGNATURE_SETTING = "citerec.history_signature"
# The connection's session secret: set once per connection with a server-side bound parameter,
# so no other session sees it (pg_stat_activity shows `$1`), and a signature seen in another
# session's query text is worth nothing in one's own.
SESSION_SETTING = "citerec.history_session"
# Owner-only: what the database checks signatures with (written by grant_runtime_role).
SIGNING_KEY_TABLE = "citerec_history_key"
# Who recorded each context, as the database saw it (written by _pgh_attach_context()).
ORIGIN_TABLE = "citerec_history_context_origin"
_KEY_PURPOSE = b"citerec.history-context-signing-key"
_HMAC_BLOCK = 64  # SHA-256's block size

_M = TypeVar("_M", bound=type[models.Model])


def tracked(name: str, *trackers: pghistory.Tracker) -> Callable[[_M], _M]:
    """Track a model's changes; its events must carry a history context."""
    constraint = models.CheckConstraint(
        condition=Q(pgh_context__isnull=False), name=f"{name}_event_has_context"
    )
    chosen = trackers or (pghistory.InsertEvent(), pghistory.UpdateEvent(), pghistory.DeleteEvent())
    return pghistory.track(  # type: ignore[no-any-return]
        *chosen,
        obj_field=pghistory.ObjForeignKey(related_name="history", db_index=True),
        meta={"constraints": [constraint]},
    )


def event_model(name: str, app_label: str = "curation") -> Any:
    """Return the pghistory event model of a tracked model, by model name.

    Event models are made by pghistory at runtime, so they are looked up, not imported.
    """
    return apps.get_model(app_label, f"{name}Event")


def last_change(name: str, pk: Any, app_label: str = "curation") -> dict[str, Any]:
    """Return the history context (who, where from, why) and time of an object's latest change.

    Empty when the object has no history yet. What a refused stale write tells its author.
    """
    event = (
        event_model(name, app_label)
        .objects.filter(pgh_obj_id=pk)
        .select_related("pgh_context")
        .order_by("-pgh_id")
        .first()
    )
    if event is None or event.pgh_context is None:
        return {}
    return {**event.pgh_context.metadata, "at": event.pgh_created_at.isoformat()}


def signing_key() -> bytes:
    """Return the key that signs history contexts: derived from SECRET_KEY, never SECRET_KEY."""
    return _derived_key(force_bytes(settings.SECRET_KEY))


@lru_cache(maxsize=4)
def _derived_key(secret: bytes) -> bytes:
    return hmac.new(secret, _KEY_PURPOSE, hashlib.sha256).digest()


def signing_key_pads(key: bytes) -> tuple[bytes, bytes]:
    """Return HMAC-SHA256's inner and outer padded keys for `key`.

    The database keeps these, so it checks a signature with the built-in sha256() alone:
    pgcrypto's hmac() is an extension, and the embedded server has none.
    """
    if len(key) > _HMAC_BLOCK:
        key = hashlib.sha256(key).digest()
    block = key.ljust(_HMAC_BLOCK, b"\0")
    return bytes(b ^ 0x36 for b in block), bytes(b ^ 0x5C for b in block)


def context_signature(
    session: str, context_id: str, metadata: str, key: bytes | None = None
) -> str:
    """Return the hex signature of a history context as the database checks it.

    `context_id` and `metadata` are the exact texts given to the database's settings.
    """
    message = f"{session}\n{context_id}\n{metadata}".encode()
    return hmac.new(key or signing_key(), message, hashlib.sha256).hexdigest()
