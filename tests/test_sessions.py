"""Admin sessions are stored under a keyed hash of their cookie key (citerec/sessions.py).

The runtime database role may read (and write) django_session: a key read from the table must
not log anyone in, while the cookie the browser holds still does, until logout or expiry.
"""

from __future__ import annotations

from datetime import timedelta
from importlib import import_module
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.base import SessionBase
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from citerec.sessions import stored_key
from tests.runtime_roles import RuntimeRole, runtime_role_fixture

pytestmark = pytest.mark.django_db

PASSWORD = "pw-Xk2!long-enough"
ADMIN = "/admin/"

runtime_role = runtime_role_fixture("citerec_test_sess")


def SessionStore(key: str | None) -> SessionBase:  # noqa: N802 (as Django names the class)
    """Return the configured engine's store for a session key."""
    return import_module(settings.SESSION_ENGINE).SessionStore(key)  # type: ignore[no-any-return]


@pytest.fixture
def curator() -> Any:
    return get_user_model().objects.create_superuser("cora", "cora@example.org", PASSWORD)


def _logged_in(username: str = "cora") -> Client:
    """Return a client that logged in through the admin's form, as a curator does."""
    client = Client()
    response = client.post(
        "/admin/login/?next=/admin/", {"username": username, "password": PASSWORD}
    )
    assert response.status_code == 302 and response["Location"] == ADMIN
    return client


def _with_cookie(key: str) -> Client:
    client = Client()
    client.cookies[settings.SESSION_COOKIE_NAME] = key
    return client


def _cookie(client: Client) -> str:
    return str(client.cookies[settings.SESSION_COOKIE_NAME].value)


@pytest.mark.django_db(transaction=True)
def test_a_session_key_read_from_the_table_does_not_log_in(
    runtime_role: RuntimeRole, curator: Any
) -> None:
    browser = _logged_in()
    with runtime_role.connect() as conn:
        stored = [row[0] for row in conn.execute("SELECT session_key FROM django_session")]
    assert len(stored) == 1
    assert _with_cookie(stored[0]).get(ADMIN).status_code == 302  # to the login page
    assert _cookie(browser) not in stored
    assert browser.get(ADMIN).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_session_data_copied_onto_another_session_does_not_log_in(
    runtime_role: RuntimeRole, curator: Any
) -> None:
    """With the runtime password one may also write django_session: a curator's session data
    copied onto the row of a session one holds (one's own login) does not make one that curator."""
    _logged_in()
    get_user_model().objects.create_user("mallory", "m@example.org", PASSWORD, is_staff=True)
    mallory = _logged_in("mallory")
    assert "cora" not in mallory.get(ADMIN).content.decode()
    with runtime_role.connect() as conn:
        conn.execute(
            "UPDATE django_session SET session_data = (SELECT session_data FROM django_session "
            "WHERE session_key <> %s ORDER BY expire_date DESC LIMIT 1) WHERE session_key = %s",
            [stored_key(_cookie(mallory))] * 2,
        )
        conn.commit()
    assert mallory.get(ADMIN).status_code == 302  # neither cora nor mallory: the data is refused


def test_logout_ends_the_session_for_the_cookie_and_in_the_table(curator: Any) -> None:
    browser = _logged_in()
    cookie = _cookie(browser)
    assert Session.objects.count() == 1
    browser.post("/admin/logout/")
    assert Session.objects.count() == 0
    assert _with_cookie(cookie).get(ADMIN).status_code == 302


def test_an_expired_session_does_not_log_in(curator: Any) -> None:
    browser = _logged_in()
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    assert browser.get(ADMIN).status_code == 302


def test_a_cycled_key_replaces_the_session(curator: Any) -> None:
    """Django cycles the key when who is logged in changes (or the password): the old one dies."""
    browser = _logged_in()
    store = SessionStore(_cookie(browser))
    store.cycle_key()
    store.save()
    assert Session.objects.count() == 1
    assert _with_cookie(_cookie(browser)).get(ADMIN).status_code == 302
    assert _with_cookie(str(store.session_key)).get(ADMIN).status_code == 200


def test_a_new_password_ends_the_sessions_opened_with_the_old_one(curator: Any) -> None:
    browser = _logged_in()
    curator.set_password("another-pw-Xk2!long")
    curator.save()
    assert browser.get(ADMIN).status_code == 302


def test_the_async_methods_keep_the_same_rows(curator: Any) -> None:
    """ASGI code reaches the store through its a-methods: the same keyed rows, the same data."""

    async def save() -> str:
        store = SessionStore(None)
        await store.aset("colour", "blue")
        await store.asave()
        return str(store.session_key)

    async def read_then_delete(key: str) -> tuple[Any, bool, bool]:
        store = SessionStore(key)
        colour, found = await store.aget("colour"), await store.aexists(key)
        await store.adelete()
        return colour, found, await store.aexists(key)

    key = async_to_sync(save)()
    assert list(Session.objects.values_list("session_key", flat=True)) == [stored_key(key)]
    assert async_to_sync(read_then_delete)(key) == ("blue", True, False)
    assert not Session.objects.exists()
