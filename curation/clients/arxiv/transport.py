"""How every request to arXiv is sent: throttled across workers, retried, its body capped.

An httpx2 transport, because oaipmh-scythe sends its requests with an httpx2 client: giving
that client this transport puts the OAI-PMH harvest under the same policy as the e-prints.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata

import httpx2
from django.conf import settings

from curation.clients.arxiv.errors import ArxivOffline, ArxivUnavailable
from curation.clients.crossref.client import retry_after_seconds
from curation.clients.crossref.throttle import Throttle

RETRYABLE = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: retries after the first attempt, backoff bounds, the Retry-After cap."""

    max_retries: int = 4
    backoff: float = 2.0
    max_backoff: float = 60.0
    max_retry_after: float = 300.0


class BodyTooLarge(Exception):
    """The response body passed the transport's cap (the client says which paper and cap)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"response body larger than {limit} bytes")
        self.limit = limit


def user_agent(contact: str | None = None) -> str:
    """Return the User-Agent naming this deployment and whom arXiv can write to about it."""
    try:
        version = metadata.version("citerec")
    except metadata.PackageNotFoundError:
        version = "0"
    contact = contact if contact is not None else settings.ARXIV_CONTACT or settings.CROSSREF_MAILTO
    details = [f"+{settings.CITEREC_BASE_URL}"] if settings.CITEREC_BASE_URL else []
    details += [f"mailto:{contact}"] if contact else []
    return f"citerec/{version}" + (f" ({'; '.join(details)})" if details else "")


class PoliteTransport(httpx2.BaseTransport):
    """Send each request when the shared throttle allows; retry 429/5xx/timeouts with backoff.

    A Retry-After is pushed into the throttle, so every worker waits, not only this one; one
    longer than `max_retry_after` gives up at once (the caller retries much later). The body
    is read here, inside the retry loop, so a connection cut mid-body is retried too, and
    reading stops once it passes `max_body`.
    """

    def __init__(
        self,
        *,
        throttle: Throttle,
        inner: httpx2.BaseTransport,
        max_body: int,
        offline: bool = False,
        policy: RetryPolicy = RetryPolicy(),
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.throttle, self.inner, self.max_body, self.offline = throttle, inner, max_body, offline
        self.policy = policy
        self._clock, self._sleep = clock, sleep

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        """Return arXiv's answer to the request (its body read), or raise ArxivUnavailable."""
        if self.offline:  # the client refuses earlier; this keeps "never calls out" true anyway
            raise ArxivOffline(f"offline mode: {request.method} {request.url} not sent")
        problem, told_when = "", False
        for attempt in range(self.policy.max_retries + 1):
            if attempt and not told_when:
                self._sleep(self._delay(attempt))
            told_when = False
            self.throttle.wait()
            try:
                response = self.inner.handle_request(request)
            except httpx2.TransportError as exc:  # timeouts included
                problem = f"{exc.__class__.__name__}: {exc}"
                continue
            if response.status_code in RETRYABLE:
                response.close()
                problem = f"HTTP {response.status_code}"
                wait = retry_after_seconds(response.headers.get("Retry-After"), self._clock())
                if wait is not None:
                    # Everybody waits, not only this worker: arXiv limits the deployment.
                    self.throttle.block(wait)
                    if wait > self.policy.max_retry_after:
                        raise ArxivUnavailable(
                            f"{request.method} {request.url}: HTTP {response.status_code} with "
                            f"Retry-After {wait:.0f}s (more than {self.policy.max_retry_after:.0f}s)"
                        )
                    problem += f", Retry-After {wait:g}s"
                    told_when = True  # the throttle waits exactly that long; no backoff on top
                continue
            try:
                body = self._read(response)
            except httpx2.TransportError as exc:
                problem = f"{exc.__class__.__name__} reading the body: {exc}"
                continue
            return httpx2.Response(
                response.status_code,
                headers=response.headers,
                stream=httpx2.ByteStream(body),
                extensions=response.extensions,
            )
        raise ArxivUnavailable(
            f"{request.method} {request.url}: gave up after {self.policy.max_retries + 1} tries ({problem})"
        )

    def close(self) -> None:
        """Close the inner transport's connections."""
        self.inner.close()

    def _read(self, response: httpx2.Response) -> bytes:
        """Return the body as sent (not content-decoded), refusing one larger than max_body."""
        try:
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > self.max_body:
                raise BodyTooLarge(self.max_body)
            chunks: Iterable[bytes]
            if response.is_stream_consumed:  # built in memory (a mock transport): read already
                chunks = [response.content]
            else:
                chunks = response.iter_raw()
            kept, size = [], 0
            for chunk in chunks:
                size += len(chunk)
                if size > self.max_body:
                    raise BodyTooLarge(self.max_body)
                kept.append(chunk)
            return b"".join(kept)
        finally:
            response.close()

    def _delay(self, attempt: int) -> float:
        """Return the exponential backoff with jitter before retry number attempt."""
        base = min(self.policy.max_backoff, self.policy.backoff * 2 ** (attempt - 1))
        return base * (0.5 + random.random() / 2)
