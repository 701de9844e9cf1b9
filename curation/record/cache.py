"""Built record bytes, cached under the record's version; no staleness window.

Building a 100-reference record costs far more than the rest of a request, and its bytes only
change when something it shows changes. Every such write bumps the record's version in its own
transaction (database triggers, curation/record/migrations/0001_initial.py), and the version is read in one
indexed statement per request (selectors.record_version), so a cached body is served only for the
version it was built from: no time-based expiry decides freshness. The cache timeout
(API_RECORD_CACHE_SECONDS) only bounds how long unused versions take up memory.

The digest is cached on its own beside the body, so a conditional GET is answered from the
version and the digest without building or fetching the body. Each process also keeps the last
few bodies it served (no Redis round trip for a popular record).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime

from django.core.cache import caches

from .builder import build_record, record_bytes
from .selectors import Version
from .timestamps import format_seconds, truncate_to_minute

# Part of every key: change it when the builder's bytes change for the same stored data.
BUILD = "v1.2"
# The last few bodies each process served, in front of the shared cache: a hit costs no round
# trip and no copy of the body out of Redis. Safe for the same reason the shared cache is: a key
# names one version of one record on one day, so its bytes never change.
_LOCAL_SIZE = 8
_local: OrderedDict[str, tuple[str, bytes]] = OrderedDict()
_local_lock = threading.Lock()
# Canonical JSON sorts keys, so every record starts with its fixed-width as_of.
_AS_OF_PREFIX = b'{"as_of":"'
_AS_OF_END = len(_AS_OF_PREFIX) + len("2026-08-20T03:56:00Z")


@dataclass(frozen=True)
class RecordBytes:
    """A record's canonical bytes and its context digest."""

    body: bytes
    digest: str


def _keys(version: Version, now: datetime) -> tuple[str, str]:
    # The thesis names the UTC day of as_of and is part of the digest: one build per day.
    base = f"record:{BUILD}:{version.key}:{now.astimezone(UTC).date().isoformat()}"
    return base + ":digest", base + ":body"


def _restamp(body: bytes, as_of: datetime) -> bytes:
    """Return body with as_of set to the given time (the digest leaves as_of out)."""
    stamp = format_seconds(truncate_to_minute(as_of))
    assert stamp is not None and body.startswith(_AS_OF_PREFIX)
    return _AS_OF_PREFIX + stamp.encode("ascii") + body[_AS_OF_END:]


def _remembered(key: str) -> tuple[str, bytes] | None:
    if caches["records"].default_timeout == 0:  # record caching turned off
        return None
    with _local_lock:
        hit = _local.get(key)
        if hit is not None:
            _local.move_to_end(key)
        return hit


def _remember(key: str, value: tuple[str, bytes]) -> None:
    if caches["records"].default_timeout == 0:
        return
    with _local_lock:
        _local[key] = value
        _local.move_to_end(key)
        while len(_local) > _LOCAL_SIZE:
            _local.popitem(last=False)


def cached_digest(version: Version, now: datetime) -> str | None:
    """Return the context digest of this version today when a body is cached, else None."""
    digest_key, body_key = _keys(version, now)
    hit = _remembered(body_key)
    if hit is not None:
        return hit[0]
    digest: str | None = caches["records"].get(digest_key)
    return digest


def record_at(arxiv_id: str, version: Version, now: datetime) -> RecordBytes | None:
    """Return the record of this version as of now (from the cache or built), or None."""
    cache = caches["records"]
    digest_key, body_key = _keys(version, now)
    hit: tuple[str, bytes] | None = _remembered(body_key) or cache.get(body_key)
    if hit is not None:
        _remember(body_key, hit)
        digest, body = hit
        return RecordBytes(_restamp(body, now), digest)
    record = build_record(arxiv_id, now)
    if record is None:  # deleted since the version was read
        return None
    # Built after the version was read, so never older than it (at worst newer: the next
    # request reads the newer version and builds again).
    built = RecordBytes(record_bytes(record), record["context_digest"])
    cache.set_many({digest_key: built.digest, body_key: (built.digest, built.body)})
    _remember(body_key, (built.digest, built.body))
    return built
