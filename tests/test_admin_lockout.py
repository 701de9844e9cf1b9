"""Admin logins are throttled per account and per address (django-axes): after the allowed
wrong passwords even the right one is refused until the cool-off has passed."""

from __future__ import annotations

from typing import Any

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

pytestmark = pytest.mark.django_db

PASSWORD = "pw-Xk2!long-enough"
LOGIN = "/admin/login/?next=/admin/"


@pytest.fixture(autouse=True)
def _limits(settings: Any) -> None:
    settings.AXES_FAILURE_LIMIT = 3


@pytest.fixture
def admin_user() -> Any:
    return get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD)


def _login(username: str, password: str, address: str, **headers: str) -> int:
    response = Client().post(
        LOGIN, {"username": username, "password": password}, REMOTE_ADDR=address, **headers
    )
    return int(response.status_code)


def _cool_off(settings: Any) -> None:
    """Move every failure back past the cool-off time, as if it had passed."""
    past = timezone.now() - settings.AXES_COOLOFF_TIME - timezone.timedelta(seconds=1)
    AccessAttempt.objects.update(attempt_time=past)


def test_an_account_locks_after_wrong_passwords_from_many_addresses(
    admin_user: Any, settings: Any
) -> None:
    wrong = [_login("root", "guess", f"198.51.100.{n}") for n in range(3)]
    assert wrong == [200, 200, 429]  # the form again, then the lockout
    assert _login("root", PASSWORD, "192.0.2.50") == 429  # the right password, refused
    _cool_off(settings)
    assert _login("root", PASSWORD, "192.0.2.50") == 302  # logged in


def test_an_address_locks_after_wrong_passwords_for_many_accounts(
    admin_user: Any, settings: Any
) -> None:
    wrong = [_login(f"user{n}", "guess", "203.0.113.7") for n in range(3)]
    assert wrong == [200, 200, 429]
    assert _login("root", PASSWORD, "203.0.113.7") == 429
    # A new X-Forwarded-For does not make a new address (NUM_PROXIES=0).
    assert _login("root", PASSWORD, "203.0.113.7", HTTP_X_FORWARDED_FOR="192.0.2.99") == 429
    assert _login("root", PASSWORD, "192.0.2.51") == 302  # the account itself is not locked
    _cool_off(settings)
    assert _login("root", PASSWORD, "203.0.113.7") == 302
