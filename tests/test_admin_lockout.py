"""Admin logins are throttled per (account, address) and per address (citerec/login_lockout.py).

Wrong passwords for an account from one address lock that account from that address only, so an
attacker elsewhere cannot lock a curator out of their own address; an address past its cap over
all accounts is locked for every account, for the longer address cool-off. While locked, even
the right password is refused.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

pytestmark = pytest.mark.django_db

PASSWORD = "pw-Xk2!long-enough"
LOGIN = "/admin/login/?next=/admin/"
ATTACKER = "203.0.113.7"
ALICE_AT_WORK = "192.0.2.50"


@pytest.fixture(autouse=True)
def _limits(settings: Any) -> None:
    settings.AXES_FAILURE_LIMIT = 3
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    settings.ADMIN_LOGIN_ADDRESS_FAILURE_LIMIT = 5
    settings.ADMIN_LOGIN_ADDRESS_COOLOFF = timedelta(minutes=60)


@pytest.fixture
def alice() -> Any:
    return get_user_model().objects.create_superuser("alice", "alice@example.org", PASSWORD)


def _login(username: str, password: str, address: str, **headers: str) -> int:
    response = Client().post(
        LOGIN, {"username": username, "password": password}, REMOTE_ADDR=address, **headers
    )
    return int(response.status_code)


def _time_passes(minutes: int) -> None:
    """Move every recorded failure back, as if this much time had passed since."""
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=minutes))


def test_wrong_passwords_from_one_address_lock_the_account_there_only(alice: Any) -> None:
    wrong = [_login("alice", "guess", ATTACKER) for _ in range(3)]
    assert wrong == [200, 200, 429]  # the form again, then the lockout
    assert _login("alice", PASSWORD, ATTACKER) == 429  # the right password, refused there
    assert _login("alice", PASSWORD, ALICE_AT_WORK) == 302  # alice gets in from her address


def test_wrong_passwords_from_many_addresses_do_not_lock_the_account(alice: Any) -> None:
    wrong = [_login("alice", "guess", f"198.51.100.{n}") for n in range(6)]
    assert wrong == [200] * 6
    assert _login("alice", PASSWORD, ALICE_AT_WORK) == 302


def test_an_address_trying_many_accounts_is_locked_for_every_account(alice: Any) -> None:
    wrong = [_login(f"user{n}", "guess", ATTACKER) for n in range(5)]
    assert wrong == [200, 200, 200, 200, 429]  # no pair reached 3; the address reached 5
    assert _login("alice", PASSWORD, ATTACKER) == 429
    # A new X-Forwarded-For does not make a new address (NUM_PROXIES=0).
    assert _login("alice", PASSWORD, ATTACKER, HTTP_X_FORWARDED_FOR="192.0.2.99") == 429
    assert _login("alice", PASSWORD, ALICE_AT_WORK) == 302  # the account itself is not locked


def test_the_attacking_address_waits_longer_than_a_locked_pair(alice: Any) -> None:
    get_user_model().objects.create_user("bob", "bob@example.org", PASSWORD, is_staff=True)
    assert [_login("alice", "guess", ALICE_AT_WORK) for _ in range(3)][-1] == 429  # a pair
    assert [_login(f"user{n}", "guess", ATTACKER) for n in range(5)][-1] == 429  # an address
    _time_passes(16)  # past the pair's 15 minutes, within the address's 60
    assert _login("alice", PASSWORD, ALICE_AT_WORK) == 302
    assert _login("bob", PASSWORD, ATTACKER) == 429
    _time_passes(61)
    assert _login("bob", PASSWORD, ATTACKER) == 302


def test_failures_before_the_cool_off_do_not_count(alice: Any) -> None:
    assert [_login(f"user{n}", "guess", ATTACKER) for n in range(4)] == [200] * 4
    _time_passes(61)
    assert _login("user9", "guess", ATTACKER) == 200  # the earlier four have expired
    assert _login("alice", PASSWORD, ATTACKER) == 302
