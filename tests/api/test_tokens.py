"""API tokens are kept as keyed digests (api/models.py): the database never holds a key, and
what it holds cannot be made without SECRET_KEY.

Every way a token is issued (the admin, DRF's drf_create_token, code creating a DRF Token) hands
the key to its issuer once; existing plain tokens are hashed by a migration, and SHA-256 digests
re-keyed by another, and keep working.
"""

from __future__ import annotations

import hashlib
import io
from importlib import import_module
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from api.models import ApiToken, key_digest
from tests.runtime_roles import RuntimeRole, runtime_role_fixture

pytestmark = pytest.mark.django_db

PRIVATE = "/api/v1/history/papers/2412.14374"  # token holders only

runtime_role = runtime_role_fixture("citerec_test_tok")


def _person(name: str = "tom", **extra: Any) -> Any:
    return get_user_model().objects.create_user(name, f"{name}@example.org", "pw-Xk2!long", **extra)


def _with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _database_holds(key: str) -> list[str]:
    """Return the token tables whose rows contain the key anywhere, as text."""
    found = []
    with connection.cursor() as cursor:
        for table in ("api_apitoken", "authtoken_token"):
            cursor.execute(f"SELECT count(*) FROM {table} t WHERE t::text LIKE %s", [f"%{key}%"])
            if cursor.fetchone()[0]:
                found.append(table)
    return found


def test_a_token_row_does_not_contain_the_key(sample: Any) -> None:
    user = _person()
    key = Token.objects.create(user=user).key  # as DRF's command, tests and old code issue one

    assert _database_holds(key) == []
    stored = ApiToken.objects.get(user=user)
    assert stored.digest == key_digest(key) != key and stored.prefix == key[:8]
    assert _with_token(key).get(PRIVATE).status_code == 200


def test_a_wrong_or_revoked_key_is_refused(sample: Any) -> None:
    user = _person()
    key = ApiToken.issue(user=user)
    wrong = key[:8] + "0" * (len(key) - 8)  # same prefix, other key

    assert _with_token(key).get(PRIVATE).status_code == 200
    assert _with_token(wrong).get(PRIVATE).status_code == 401
    assert _with_token("short").get(PRIVATE).status_code == 401
    newer = ApiToken.issue(user=user)  # asking again revokes the old key
    assert _with_token(key).get(PRIVATE).status_code == 401
    assert _with_token(newer).get(PRIVATE).status_code == 200
    user.is_active = False
    user.save()
    assert _with_token(newer).get(PRIVATE).status_code == 401


def test_drf_create_token_prints_a_key_it_does_not_keep(sample: Any) -> None:
    _person()
    out = io.StringIO()
    call_command("drf_create_token", "tom", stdout=out)
    key = out.getvalue().split()[2]  # "Generated token <key> for user tom"

    assert _database_holds(key) == [] and Token.objects.count() == 0
    assert _with_token(key).get(PRIVATE).status_code == 200
    call_command("drf_create_token", "tom", "--reset", stdout=io.StringIO())
    assert _with_token(key).get(PRIVATE).status_code == 401


def test_the_migrations_hash_plain_tokens_and_they_keep_working(sample: Any) -> None:
    from django.apps import apps

    user = _person()
    plain = "0123456789abcdef0123456789abcdef01234567"
    Token.objects.bulk_create([Token(key=plain, user=user)])  # a row as DRF stored it (no signal)
    assert _database_holds(plain) == ["authtoken_token"]

    import_module("api.migrations.0001_initial").hash_plain_tokens(apps, None)
    import_module("api.migrations.0002_token_digests_keyed").key_the_digests(apps, None)

    assert _database_holds(plain) == []
    assert _with_token(plain).get(PRIVATE).status_code == 200


def test_the_admin_shows_a_new_key_once(sample: Any) -> None:
    admin = _person("ada", is_staff=True, is_superuser=True)
    holder = _person("hal")
    client = Client()
    client.force_login(admin)

    response = client.post("/admin/api/apitoken/add/", {"user": holder.pk})

    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    key = response.context["key"]
    assert key in response.content.decode() and _database_holds(key) == []
    assert _with_token(key).get(PRIVATE).status_code == 200
    listing = client.get("/admin/api/apitoken/").content.decode()
    assert key[:8] in listing and key not in listing
    assert client.get("/admin/authtoken/tokenproxy/").status_code == 404  # DRF's plain-key page


def test_sha256_digests_are_keyed_in_place_and_their_tokens_keep_working(sample: Any) -> None:
    from django.apps import apps

    user = _person()
    key = "0123456789abcdef0123456789abcdef01234567"
    sha256 = hashlib.sha256(key.encode()).hexdigest()
    ApiToken.objects.create(user=user, prefix=key[:8], digest=sha256)  # as api 0001 stored it
    assert _with_token(key).get(PRIVATE).status_code == 401

    import_module("api.migrations.0002_token_digests_keyed").key_the_digests(apps, None)

    assert ApiToken.objects.get(user=user).digest not in (sha256, key)
    assert _with_token(key).get(PRIVATE).status_code == 200


def test_a_digest_depends_on_secret_key(sample: Any, settings: Any) -> None:
    key = ApiToken.issue(user=_person())
    assert _with_token(key).get(PRIVATE).status_code == 200
    settings.SECRET_KEY = "another deployment's secret key, long enough to be one" * 2
    assert _with_token(key).get(PRIVATE).status_code == 401


@pytest.mark.django_db(transaction=True)
def test_the_runtime_password_cannot_make_a_key_for_a_curator(runtime_role: RuntimeRole) -> None:
    """The digest of a key one chose, written over a curator's token as the runtime role (which
    may write api_apitoken), authenticates no one: a digest needs SECRET_KEY to be made."""
    curator = _person("cora", is_staff=True)
    real = ApiToken.issue(user=curator)
    chosen = "feedface" * 5
    with runtime_role.connect() as conn:
        conn.execute(
            "UPDATE api_apitoken SET prefix = %s, digest = %s WHERE user_id = %s",
            [chosen[:8], hashlib.sha256(chosen.encode()).hexdigest(), curator.pk],
        )
        conn.commit()
    assert _with_token(chosen).get(PRIVATE).status_code == 401
    assert _with_token(real).get(PRIVATE).status_code == 401  # the row no longer holds it
