"""Admin login lockouts that an attacker elsewhere cannot turn against a curator.

django-axes counts wrong passwords per (account, address) pair: ADMIN_LOGIN_FAILURE_LIMIT of them
lock that account from that address only, for ADMIN_LOGIN_COOLOFF_MINUTES, so someone guessing
alice's password from their own machine does not lock alice out of hers. An address is also
capped over all accounts: ADMIN_LOGIN_ADDRESS_FAILURE_LIMIT wrong passwords from it, whatever
the names tried, lock every login from it for the longer ADMIN_LOGIN_ADDRESS_COOLOFF_MINUTES,
which stops one address walking through the accounts. Both count from the last wrong password,
and a wrong password during a lockout starts its cool-off again.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.utils import timezone


class PairAndAddressLockout(AxesDatabaseHandler):  # type: ignore[misc]
    """Lock (account, address) pairs, and addresses past their cap over all accounts."""

    def get_failures(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        """Return the pair's failures, or the limit itself once the address is past its cap.

        axes compares this with the failure limit, both to refuse a login (the right password
        too) and to lock after a wrong one.
        """
        pair = int(super().get_failures(request, credentials))
        if address_failures(request) >= settings.ADMIN_LOGIN_ADDRESS_FAILURE_LIMIT:
            return max(pair, int(get_failure_limit(request, credentials)))
        return pair

    def clean_expired_user_attempts(
        self, request: Any = None, credentials: dict[str, Any] | None = None
    ) -> int:
        """Delete attempts past both cool-offs (axes alone would drop the address's sooner)."""
        keep = max(get_cool_off(request) or timedelta(0), settings.ADMIN_LOGIN_ADDRESS_COOLOFF)
        count, _ = AccessAttempt.objects.filter(attempt_time__lte=_now(request) - keep).delete()
        return int(count)


def address_failures(request: Any) -> int:
    """Return the wrong passwords from the request's address, all accounts, in its cool-off."""
    since = _now(request) - settings.ADMIN_LOGIN_ADDRESS_COOLOFF
    total = AccessAttempt.objects.filter(
        ip_address=request.axes_ip_address, attempt_time__gte=since
    ).aggregate(total=Sum("failures_since_start"))["total"]
    return int(total or 0)


def _now(request: Any) -> datetime:
    """Return when axes saw the request (its clock for every count), or now."""
    return getattr(request, "axes_attempt_time", None) or timezone.now()
