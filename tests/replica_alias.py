"""A `replica` database alias made by a test after Django's test case started (tests/test_replica*)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

from citerec.replica import REPLICA


@contextmanager
def replica_alias(monkeypatch: pytest.MonkeyPatch, **database: Any) -> Iterator[None]:
    """Add the replica alias (the test database's settings updated with `database`) for a while.

    Django's test case refuses connections to an alias it did not know when it started, and
    this one is made afterwards: its connection is opened as Django opens any (the others stay
    checked).
    """
    configured = connections.configure_settings(
        {"default": {}, REPLICA: {**connections["default"].settings_dict, **database}}
    )
    connections.settings[REPLICA] = configured[REPLICA]
    checked = BaseDatabaseWrapper.ensure_connection

    def ensure_connection(wrapper: BaseDatabaseWrapper) -> None:
        if wrapper.alias != REPLICA:
            return checked(wrapper)  # type: ignore[no-any-return]
        if wrapper.connection is None:
            with wrapper.wrap_database_errors:
                wrapper.connect()
        return None

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", ensure_connection)
    try:
        yield
    finally:
        connections[REPLICA].close()
        del connections[REPLICA]
        del connections.settings[REPLICA]
