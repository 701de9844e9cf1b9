"""Property-based run over the whole OpenAPI schema: no server error, no response off-schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
)

from tests import records_factory as rf
from tests.api.conftest import store

schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


@pytest.fixture
def keep_connection() -> Iterator[None]:
    """Keep the test's database connection across WSGI calls, as Django's test client does."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def token(keep_connection: None) -> str:
    """Return a reader's token, with a small record stored (so some ids exist)."""
    citing = "2412.14374"
    store(rf.record(citing, [rf.observation(citing, i, cited=f"1604.0617{i}") for i in (1, 2)]))
    user = get_user_model().objects.create_user("sam", "sam@example.org", "pw-Xk2!long")
    return Token.objects.create(user=user).key


# Autocommit per request, as in production: a request that fails in the database must not
# poison the next one through a shared test transaction.
@pytest.mark.django_db(transaction=True)
@schema.parametrize()
@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,  # the same cases on every run: CI stays reproducible
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_api_conforms_to_its_schema(case: Any, token: str) -> None:
    case.call_and_validate(headers={"Authorization": f"Token {token}"}, checks=CHECKS)
