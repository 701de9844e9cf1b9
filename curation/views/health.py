"""Health check for load balancers and process managers: database, broker and cache, by name.

A required check that fails makes the answer 503; one that is not required (by default the
cache, which the site works without: throttles and caches fail open) makes it 200 "degraded".
`HEALTHZ_REQUIRED` chooses the required checks. The cache is checked through its own connections,
so while its circuit breaker is open (citerec/caches.py) the answer names the error that opened
it at once instead of waiting on a hung server.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from citerec.caches import CacheSkipped

_TIMEOUT = 2  # seconds: a health check must answer even when a server does not


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "postgresql"


def _ping_redis(url: str) -> None:
    import redis  # imported lazily: the eager default never needs it

    client = redis.Redis.from_url(url, socket_timeout=_TIMEOUT, socket_connect_timeout=_TIMEOUT)
    try:
        client.ping()
    finally:
        client.close()


def _broker() -> str:
    if not settings.REDIS_URL:
        return "eager"  # tasks run in process: no broker to check
    _ping_redis(settings.REDIS_URL)
    return "redis"


def _cache() -> str:
    backend = str(settings.CACHES["default"]["BACKEND"])
    if not backend.startswith("django_redis."):
        return backend.rsplit(".", 1)[-1].lower()
    # The cache's own pool: its timeout (CACHE_REDIS_TIMEOUT) and its breaker, not a new client.
    caches["default"].client.get_client(write=True).ping()  # type: ignore[attr-defined]
    return "redis"


CHECKS: dict[str, Callable[[], str]] = {"database": _database, "broker": _broker, "cache": _cache}


def _run(name: str, check: Callable[[], str], required: bool) -> dict[str, object]:
    try:
        return {"status": "ok", "backend": check(), "required": required}
    except CacheSkipped as skipped:  # not tried now: name the failure that opened the breaker
        return {"status": "failed", "error": skipped.failure, "required": required}
    except Exception as exc:  # noqa: BLE001 — any failure means this check failed; name it
        return {"status": "failed", "error": exc.__class__.__name__, "required": required}


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Answer with each check's status; 503 when a required one failed."""
    required = set(settings.HEALTHZ_REQUIRED)
    checks = {name: _run(name, check, name in required) for name, check in CHECKS.items()}
    failed = [name for name, result in checks.items() if result["status"] != "ok"]
    unavailable = any(checks[name]["required"] for name in failed)
    body = {
        "status": "unavailable" if unavailable else "degraded" if failed else "ok",
        "checks": checks,
        "problems": [f"{name}: {checks[name]['error']}" for name in failed],
        "broker": checks["broker"].get("backend", "redis"),
    }
    return JsonResponse(body, status=503 if unavailable else 200)
