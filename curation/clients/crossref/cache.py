"""A response cache shared through Redis when configured, in process otherwise."""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Protocol

# Cached value for "the source said 404": the key exists, the work does not.
MISSING: dict[str, Any] = {"__missing__": True}


class ResponseCache(Protocol):
    """Stores decoded responses by key for a time."""

    def get(self, key: str) -> dict[str, Any] | None:
        """Return the cached value, or None when absent or expired."""

    def set(self, key: str, value: dict[str, Any], ttl: float) -> None:
        """Store a value for ttl seconds."""


class MemoryCache:
    """A small in-process cache with expiry (bounded, oldest dropped first)."""

    def __init__(self, max_items: int = 10_000) -> None:
        self._items: dict[str, tuple[float, dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._max = max_items

    def get(self, key: str) -> dict[str, Any] | None:
        """Return the cached value, or None when absent or expired."""
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            if item[0] < time.monotonic():
                del self._items[key]
                return None
            return item[1]

    def set(self, key: str, value: dict[str, Any], ttl: float) -> None:
        """Store a value for ttl seconds."""
        with self._lock:
            if len(self._items) >= self._max:
                self._items.pop(next(iter(self._items)))
            self._items[key] = (time.monotonic() + ttl, value)


class RedisCache:
    """Responses cached in Redis, so every worker benefits from every lookup."""

    def __init__(self, redis_client: Any, prefix: str) -> None:
        self._redis = redis_client
        self._prefix = prefix

    def get(self, key: str) -> dict[str, Any] | None:
        """Return the cached value, or None when absent, expired or unreadable."""
        raw = self._redis.get(self._prefix + key)
        if raw is None:
            return None
        try:
            value = json.loads(raw)
        except ValueError:
            return None  # a corrupt entry is a miss, not an error
        return value if isinstance(value, dict) else None

    def set(self, key: str, value: dict[str, Any], ttl: float) -> None:
        """Store a value for ttl seconds."""
        self._redis.set(self._prefix + key, json.dumps(value), px=max(1, int(ttl * 1000)))
