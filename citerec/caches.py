"""Cache configurations: Redis that fails open behind a circuit breaker, or per-process memory.

A Redis that refuses connections fails fast; one that hangs (a paused process, a network
blackhole) makes each call wait its full timeout. So every connection to the cache Redis goes
through its server's CircuitBreaker (citerec/outage.py): after one failed call the cache is
skipped at once (reads miss, writes are dropped, throttles let requests through) until a probe
in the background finds the server answering again.
"""

from __future__ import annotations

import threading
from typing import Any

import redis
from redis.connection import (
    AbstractConnection,
    Connection,
    SSLConnection,
    UnixDomainSocketConnection,
    parse_url,
)

from .outage import CircuitBreaker

# The errors that say the server is unreachable or hung, as opposed to a refused command.
_OUTAGES = (redis.ConnectionError, redis.TimeoutError)


class CacheSkipped(redis.ConnectionError):
    """The cache Redis is not called: its circuit breaker is open after a recent failure.

    A ConnectionError, so django-redis ignores it as it ignores a refused connection. `failure`
    names the error that opened the breaker.
    """

    def __init__(self, server: str, failure: str | None) -> None:
        super().__init__(f"{server} skipped after {failure}")
        self.failure = failure or "ConnectionError"


def redis_caches(
    location: str,
    *,
    prefix: str,
    timeouts: dict[str, int],
    wait: float,
    circuit_seconds: float = 10.0,
) -> dict[str, dict[str, Any]]:
    """Return one django-redis cache per alias, under prefix, that ignores Redis outages.

    While Redis is down, reads miss and writes are dropped (IGNORE_EXCEPTIONS); the first call
    that fails waits at most `wait` seconds, and the calls after it are skipped for
    `circuit_seconds` (then a probe decides). The outage is logged by django-redis
    (DJANGO_REDIS_LOGGER, once a minute) and the breaker (citerec.cache.circuit).
    """
    return {
        alias: {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": location,
            "KEY_PREFIX": f"{prefix}citerec:{alias}",
            "TIMEOUT": timeout,
            "OPTIONS": {
                "CLIENT_CLASS": "django_redis.client.DefaultClient",
                "IGNORE_EXCEPTIONS": True,
                "SOCKET_CONNECT_TIMEOUT": wait,
                "SOCKET_TIMEOUT": wait,
                "CONNECTION_POOL_KWARGS": {
                    "connection_class": _GUARDED[parse_url(location).get("connection_class")],
                    "circuit_seconds": circuit_seconds,
                },
            },
        }
        for alias, timeout in timeouts.items()
    }


def local_caches(timeouts: dict[str, int], name: str = "citerec") -> dict[str, dict[str, Any]]:
    """Return one in-process memory cache per alias (no Redis configured), named after name."""
    return {
        alias: {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"{name}-{alias}",
            "TIMEOUT": timeout,
        }
        for alias, timeout in timeouts.items()
    }


# --- The breaker per Redis server (process-wide: every cache alias and thread shares it) ---
_circuits: dict[str, CircuitBreaker] = {}
_circuits_lock = threading.Lock()


def _server(host: Any = None, port: Any = None, path: Any = None) -> str:
    """Return the name of a Redis server: what hangs or answers is a server, not a database."""
    return f"unix:{path}" if path else f"{host or 'localhost'}:{port or 6379}"


def reset_circuits() -> None:
    """Close every breaker and forget its counts (tests: a port may serve another server)."""
    with _circuits_lock:
        for circuit in _circuits.values():
            circuit.reset()


class _Guarded(AbstractConnection):
    """A redis-py connection that asks its server's breaker before each command.

    Every cache call passes here (django-redis commands, pipelines, the throttles' scripts), so
    an open breaker skips them all, and a timeout or connection error in any of them opens it.
    """

    _circuit: CircuitBreaker

    def __init__(self, *args: Any, circuit_seconds: float = 10.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        server = _server(kwargs.get("host"), kwargs.get("port"), kwargs.get("path"))
        with _circuits_lock:
            circuit = _circuits.get(server)
            if circuit is None:
                unguarded: type[AbstractConnection] = next(
                    c
                    for c in type(self).__mro__[1:]
                    if issubclass(c, AbstractConnection) and not issubclass(c, _Guarded)
                )
                circuit = CircuitBreaker(
                    f"cache Redis at {server}",
                    cool_off=circuit_seconds,
                    probe=lambda: _ping(unguarded, kwargs),
                )
                _circuits[server] = circuit
        self._circuit = circuit

    def _skip_when_open(self) -> None:
        if not self._circuit.allows():
            raise CacheSkipped(self._circuit.name, self._circuit.failure)

    def connect_check_health(self, *args: Any, **kwargs: Any) -> None:
        """Connect (when not connected) unless the breaker is open; a failure opens it."""
        if self._sock:  # type: ignore[has-type]
            return
        self._skip_when_open()
        try:
            super().connect_check_health(*args, **kwargs)
        except _OUTAGES as error:
            self._circuit.failed(error)
            raise

    def send_packed_command(self, *args: Any, **kwargs: Any) -> None:
        """Send a command unless the breaker is open; a failure opens it."""
        self._skip_when_open()
        try:
            super().send_packed_command(*args, **kwargs)
        except _OUTAGES as error:
            self._circuit.failed(error)
            raise

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        """Read a reply; a timeout or a broken connection opens the breaker."""
        try:
            return super().read_response(*args, **kwargs)
        except _OUTAGES as error:
            self._circuit.failed(error)
            raise


def _ping(connection_class: type[AbstractConnection], kwargs: dict[str, Any]) -> None:
    """Connect afresh, outside the breaker, and PING (the probe); raise when it fails."""
    connection = connection_class(**kwargs)
    try:
        connection.connect()
        connection.send_command("PING")
        connection.read_response()
    finally:
        connection.disconnect()


class _GuardedConnection(_Guarded, Connection):
    """A TCP connection behind the breaker."""


class _GuardedSSLConnection(_Guarded, SSLConnection):
    """A TLS connection (rediss://) behind the breaker."""


class _GuardedUnixConnection(_Guarded, UnixDomainSocketConnection):
    """A Unix socket connection (unix://) behind the breaker."""


# By the connection class redis-py picks for a URL's scheme (none for redis://).
_GUARDED: dict[Any, type] = {
    None: _GuardedConnection,
    SSLConnection: _GuardedSSLConnection,
    UnixDomainSocketConnection: _GuardedUnixConnection,
}
