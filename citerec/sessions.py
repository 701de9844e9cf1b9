"""Database sessions stored under a keyed hash of their key: a copy of django_session logs no one in.

Django's database store keeps the cookie's session key as the row's primary key, and the runtime
database role may read that table, so its password alone would let anyone present a curator's
live session. This store keeps each row under an HMAC of the key (a key derived from SECRET_KEY,
django.utils.crypto.salted_hmac); the cookie still carries the key itself, so only the browser
holding it gets in, and the data is signed for that key, so one session's data copied onto
another row does not load. Everything else is Django's: expiry, logout, key cycling at login, and
`clearsessions`. Switching to this store ends the sessions open before it (they are looked up
under the hash of their key, and were stored under the key): curators log in again once.
Changing SECRET_KEY ends every session too, as it would the signed session data.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.backends import db
from django.utils import timezone
from django.utils.crypto import salted_hmac

KEY_SALT = "citerec.sessions.stored_key"
# django_session.session_key is a varchar(40): 160 bits of HMAC-SHA256, hex.
STORED_KEY_LENGTH = 40


def stored_key(session_key: str) -> str:
    """Return the key a session's row is stored under: a keyed hash of its cookie key."""
    digest = salted_hmac(KEY_SALT, session_key, algorithm="sha256").hexdigest()
    return digest[:STORED_KEY_LENGTH]


class SessionStore(db.SessionStore):
    """Django's database sessions, each row under `stored_key(cookie key)`, its data signed for
    that key."""

    @property
    def key_salt(self) -> str:
        # Django signs the data with one salt for every session, so a curator's data written
        # over the row of a session one holds would log one in as the curator. Signed for its own
        # key, the data of another row does not verify and loads as an empty session.
        return f"citerec.sessions.SessionStore:{self.session_key}"

    def _get_session_from_db(self) -> Any:
        row = None
        if self.session_key is not None:
            row = self._unexpired(self.session_key).first()
        if row is None:
            self._session_key = None  # as Django's store: a key no row answers starts afresh
        return row

    async def _aget_session_from_db(self) -> Any:
        row = None
        if self.session_key is not None:
            row = await self._unexpired(self.session_key).afirst()
        if row is None:
            self._session_key = None
        return row

    def _unexpired(self, session_key: str) -> Any:
        return self.model.objects.filter(
            session_key=stored_key(session_key), expire_date__gt=timezone.now()
        )

    def exists(self, session_key: str) -> bool:
        return bool(super().exists(stored_key(session_key)))

    async def aexists(self, session_key: str) -> bool:
        return bool(await super().aexists(stored_key(session_key)))

    def create_model_instance(self, data: dict[str, Any]) -> Any:
        # The data is signed for the key: have it first (Django's, missing from its stubs).
        self._get_or_create_session_key()  # type: ignore[attr-defined]
        row = super().create_model_instance(data)
        row.session_key = stored_key(row.session_key)
        return row

    async def acreate_model_instance(self, data: dict[str, Any]) -> Any:
        await self._aget_or_create_session_key()  # type: ignore[attr-defined]
        row = await super().acreate_model_instance(data)
        row.session_key = stored_key(row.session_key)
        return row

    def delete(self, session_key: str | None = None) -> None:
        key = session_key or self.session_key
        if key is not None:
            super().delete(stored_key(key))

    async def adelete(self, session_key: str | None = None) -> None:
        key = session_key or self.session_key
        if key is not None:
            await super().adelete(stored_key(key))
