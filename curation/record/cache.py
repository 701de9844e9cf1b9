"""Built record bytes, cached under the record's substantive version.

Building a 100-reference record costs about as much as the rest of a request together, and the
bytes only change when the record does. The cache key holds a version stamp read in one cheap
statement (outbound and inbound observation counts and latest `changed_at`), so curated changes
show at once; what does not bump `changed_at` (receipt times of a notice refresh that found
nothing new, paper metadata) shows within the cache timeout (API_RECORD_CACHE_SECONDS).

The stamp read is then the whole cost of a 304. Deployments that accept curated changes showing
up to a second late (clients already cache a record for 60 s) can cache the stamp itself
(API_RECORD_STAMP_SECONDS, off by default) and answer 304s without touching the database.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from django.core.cache import caches
from django.db import connection

from .builder import build_record, record_bytes
from .timestamps import format_seconds, truncate_to_minute

_STAMP_SQL = """
SELECT p.id,
  (SELECT count(*) || ':' || coalesce(max(o.changed_at)::text, '')
     FROM curation_observation o WHERE o.paper_id = p.id),
  (SELECT count(*) || ':' || coalesce(max(o.changed_at)::text, '')
     FROM curation_observation o WHERE o.cited_paper_id = p.id)
FROM curation_paper p WHERE p.arxiv_id = %s
"""
# Canonical JSON sorts keys, so every record starts with its fixed-width as_of.
_AS_OF_PREFIX = b'{"as_of":"'
_AS_OF_END = len(_AS_OF_PREFIX) + len("2026-08-20T03:56:00Z")


@dataclass(frozen=True)
class RecordBytes:
    """A record's canonical bytes and its context digest."""

    body: bytes
    digest: str

    @property
    def etag(self) -> str:
        """Return the record's weak ETag (SPEC §1 "Caching")."""
        return f'W/"{self.digest}"'


def _read_stamp(arxiv_id: str) -> str | None:
    """Return the record's version stamp, or None for an unknown paper, in one statement."""
    with connection.cursor() as cursor:
        cursor.execute(_STAMP_SQL, [arxiv_id])
        row = cursor.fetchone()
    return None if row is None else "|".join(str(part) for part in row)


def _stamp(arxiv_id: str) -> str | None:
    """Return the version stamp, from the stamp cache when one is configured."""
    stamps = caches["record_stamps"]
    if not stamps.default_timeout:  # off: every request reads the database
        return _read_stamp(arxiv_id)
    key = "stamp:v1:" + hashlib.sha256(arxiv_id.encode()).hexdigest()
    stamp: str | None = stamps.get(key)
    if stamp is None:
        stamp = _read_stamp(arxiv_id)
        if stamp is not None:
            stamps.set(key, stamp)
    return stamp


def _restamp(body: bytes, as_of: datetime) -> bytes:
    """Return body with as_of set to the given time (the digest leaves as_of out)."""
    stamp = format_seconds(truncate_to_minute(as_of))
    assert stamp is not None and body.startswith(_AS_OF_PREFIX)
    return _AS_OF_PREFIX + stamp.encode("ascii") + body[_AS_OF_END:]


def record_for(arxiv_id: str, now: datetime) -> RecordBytes | None:
    """Return the record of a paper as of now, or None when the paper is unknown."""
    stamp = _stamp(arxiv_id)
    if stamp is None:
        return None
    cache = caches["records"]
    # Hashed: memcached-safe characters whatever the id and timestamps hold.
    key = "record:v1:" + hashlib.sha256(f"{arxiv_id}|{stamp}".encode()).hexdigest()
    hit: tuple[str, bytes] | None = cache.get(key)
    if hit is not None:
        digest, body = hit
        return RecordBytes(_restamp(body, now), digest)
    record = build_record(arxiv_id, now)
    if record is None:  # deleted between the two reads
        return None
    built = RecordBytes(record_bytes(record), record["context_digest"])
    cache.set(key, (built.digest, built.body))
    return built
