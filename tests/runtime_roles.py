"""A throwaway runtime role (README "Database roles") for tests that act as production's web and
workers connect: made by `grant_runtime_role` with a random name, dropped at the end.

Roles are cluster-wide, so each test process makes its own; every module that needs one declares
`runtime_role = runtime_role_fixture("<prefix>")`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlparse, urlunparse

import psycopg
import pytest
from django.db import connection

from curation.db_roles import grant_runtime_role
from tests.conftest import database_url


@dataclass(frozen=True)
class RuntimeRole:
    """A runtime role of this test process, and how to reach a database as it."""

    name: str
    password: str

    def url(self, database: str | None = None) -> str:
        """Return the URL of `database` (default: this process's test database) as this role."""
        parsed = urlparse(database_url(database or connection.settings_dict["NAME"]))
        netloc = f"{self.name}:{quote(self.password)}@{parsed.netloc.rpartition('@')[2]}"
        return urlunparse(parsed._replace(netloc=netloc))

    def connect(self, database: str | None = None) -> psycopg.Connection[Any]:
        """Open a connection to the test database (or another) as this role."""
        return psycopg.connect(self.url(database))


def runtime_role_fixture(prefix: str) -> Callable[..., Iterator[RuntimeRole]]:
    """Return a session fixture making a runtime role named `<prefix>_<random>`."""

    @pytest.fixture(scope="session")
    def runtime_role(django_db_setup: None, django_db_blocker: Any) -> Iterator[RuntimeRole]:
        role = RuntimeRole(f"{prefix}_{secrets.token_hex(4)}", secrets.token_hex(16))
        with django_db_blocker.unblock():
            grant_runtime_role(role.name, password=role.password)
        yield role
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
            if not cursor.fetchone()[0]:  # DROP OWNED needs membership; CREATEROLE may grant it
                cursor.execute(f'GRANT "{role.name}" TO CURRENT_USER')
            cursor.execute(f'DROP OWNED BY "{role.name}"')
            cursor.execute(f'DROP ROLE "{role.name}"')

    return runtime_role  # type: ignore[no-any-return]
