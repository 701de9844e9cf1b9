"""Health check for load balancers and process managers: the database and the broker."""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe


def _database_ok() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # noqa: BLE001 — any failure means unhealthy; report it
        return f"database: {exc.__class__.__name__}"
    return None


def _broker_ok() -> str | None:
    if not settings.REDIS_URL:
        return None  # eager mode: no broker to check
    import redis

    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2).ping()
    except Exception as exc:  # noqa: BLE001
        return f"broker: {exc.__class__.__name__}"
    return None


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Answer 200 when the database and the broker answer, 503 naming what failed otherwise."""
    problems = [p for p in (_database_ok(), _broker_ok()) if p]
    body = {
        "status": "ok" if not problems else "unavailable",
        "problems": problems,
        "broker": "redis" if settings.REDIS_URL else "eager",
    }
    return JsonResponse(body, status=503 if problems else 200)
