"""Crossref REST API client (httpx): polite, throttled, retried, cached, offline-aware."""

from __future__ import annotations

import email.utils
import hashlib
import logging
import random
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

import httpx
from django.conf import settings

from curation.clients.crossref.cache import MISSING, MemoryCache, RedisCache, ResponseCache
from curation.clients.crossref.throttle import (
    LocalThrottle,
    RedisThrottle,
    Throttle,
    redis_from_settings,
)
from curation.references.identifiers import doi_key

log = logging.getLogger(__name__)

SOURCE = "crossref"
VERSION = "citerec/0.1"
# Crossref's polite pool allows about 10 requests/s; we keep under it across all workers.
DEFAULT_RATE = 5.0
FOUND_TTL = 7 * 24 * 3600.0
MISSING_TTL = 3600.0  # a 404 may become a registered DOI soon: remember it only briefly
_RETRYABLE = frozenset({429, 500, 502, 503, 504})


class CrossrefError(Exception):
    """Crossref could not answer the request."""


class CrossrefOffline(CrossrefError):
    """Offline mode is on: nothing was called."""


class CrossrefUnavailable(CrossrefError):
    """Crossref gave up after retries (429/5xx/timeouts) or answered with unreadable JSON."""


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """Return the wait a Retry-After header asks for (seconds or an HTTP date), if readable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


class CrossrefClient:
    """Read works from the Crossref REST API politely; raise CrossrefError subclasses on failure."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        mailto: str | None = None,
        offline: bool | None = None,
        timeout: float = 10.0,
        max_retries: int = 4,
        rate_per_second: float = DEFAULT_RATE,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        max_retry_after: float = 120.0,
        throttle: Throttle | None = None,
        cache: ResponseCache | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = (base_url or settings.CROSSREF_BASE_URL).rstrip("/")
        self.mailto = settings.CROSSREF_MAILTO if mailto is None else mailto
        self.offline = settings.CITEREC_OFFLINE if offline is None else offline
        self.max_retries = max_retries
        self.backoff, self.max_backoff, self.max_retry_after = backoff, max_backoff, max_retry_after
        self._sleep = sleep
        redis_client = redis_from_settings() if throttle is None or cache is None else None
        # The deployment's REDIS_KEY_PREFIX first, as the broker's and the cache's keys have it:
        # two deployments (or CI runs) on one Redis never share a throttle or cached answers.
        prefix = f"{settings.REDIS_KEY_PREFIX}:" if settings.REDIS_KEY_PREFIX else ""
        self.throttle: Throttle = throttle or (
            RedisThrottle(
                redis_client, f"{prefix}citerec:throttle:{SOURCE}", rate_per_second, sleep=sleep
            )
            if redis_client is not None
            else LocalThrottle(rate_per_second, sleep=sleep)
        )
        self.cache: ResponseCache = cache or (
            RedisCache(redis_client, f"{prefix}citerec:{SOURCE}:") if redis_client else MemoryCache()
        )
        agent = (
            f"{VERSION} (https://github.com/citerec; mailto:{self.mailto})"
            if self.mailto
            else VERSION
        )
        self._http = httpx.Client(
            timeout=timeout,
            headers={"User-Agent": agent, "Accept": "application/json"},
            transport=transport,
            follow_redirects=True,
        )

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def work(self, doi: str) -> dict[str, Any] | None:
        """Return the "message" of GET /works/{doi}, or None when Crossref does not know it."""
        path = "/works/" + quote(doi_key(doi), safe="/:;()[]<>")
        return self._get(path, {})

    def works(self, params: dict[str, str]) -> dict[str, Any]:
        """Return the "message" of GET /works?{params} (a search or a filter)."""
        message = self._get("/works", dict(params))
        if message is None:
            raise CrossrefError(f"Crossref answered 404 for /works?{urlencode(params)}")
        return message

    # --- internals ------------------------------------------------------------------------

    def _get(self, path: str, params: dict[str, str]) -> dict[str, Any] | None:
        if self.offline:
            raise CrossrefOffline(f"offline mode: GET {path} not sent")
        if self.mailto:
            params.setdefault("mailto", self.mailto)
        key = hashlib.sha1((path + "?" + urlencode(sorted(params.items()))).encode()).hexdigest()
        cached = self.cache.get(key)
        if cached is not None:
            return None if cached == MISSING else cached
        message = self._fetch(path, params)
        self.cache.set(
            key,
            MISSING if message is None else message,
            MISSING_TTL if message is None else FOUND_TTL,
        )
        return message

    def _fetch(self, path: str, params: dict[str, str]) -> dict[str, Any] | None:
        url = self.base_url + path
        problem = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                self._sleep(self._delay(attempt))
            self.throttle.wait()
            try:
                response = self._http.get(url, params=params)
            except httpx.TimeoutException as exc:
                problem = f"timeout ({exc.__class__.__name__})"
                continue
            except httpx.TransportError as exc:
                problem = f"transport error: {exc}"
                continue
            if response.status_code == 404:
                return None
            if response.status_code in _RETRYABLE:
                problem = f"HTTP {response.status_code}"
                wait = retry_after_seconds(response.headers.get("Retry-After"), time.time())
                if wait is not None:
                    if wait > self.max_retry_after:
                        self.throttle.block(wait)
                        raise CrossrefUnavailable(f"GET {url}: Retry-After {wait:.0f}s is too long")
                    # Everybody waits, not only this worker: the limit is per client identity.
                    self.throttle.block(wait)
                    problem = f"HTTP {response.status_code}, Retry-After {wait:g}s"
                continue
            if response.status_code >= 400:
                raise CrossrefError(f"GET {url}: HTTP {response.status_code}")
            return self._message(url, response)
        raise CrossrefUnavailable(
            f"GET {url}: gave up after {self.max_retries + 1} tries ({problem})"
        )

    def _delay(self, attempt: int) -> float:
        """Return the exponential backoff with jitter before retry number attempt."""
        base = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        return base * (0.5 + random.random() / 2)

    @staticmethod
    def _message(url: str, response: httpx.Response) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError as exc:
            raise CrossrefUnavailable(f"GET {url}: response is not JSON") from exc
        message = body.get("message") if isinstance(body, dict) else None
        if not isinstance(message, dict):
            raise CrossrefUnavailable(f"GET {url}: response has no 'message' object")
        return message


_client: CrossrefClient | None = None


def get_client() -> CrossrefClient:
    """Return the process-wide client built from settings."""
    global _client
    if _client is None:
        _client = CrossrefClient()
    return _client
