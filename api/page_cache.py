"""List pages served from a cache whose key names what the page shows: never a stale row.

A page's bytes depend on the request (scheme, host, path, query string: the cursor and filters
are in it) and on the rows the page's query reads. Each page is keyed by the request and a
*marker* of those rows, read from the database on every request:

- RecordMarker: the version of one paper's record. Every write that changes an observation of
  the paper (outbound or inbound), its resolution, its standing notice or the arXiv id of either
  paper bumps that version in the writing transaction (curation/record/migrations/0001), so a
  list of one paper's observations (`?paper=`, `?cited_paper=`) is current exactly while the
  version is. One indexed statement, no page query.
- RowsMarker: a SHA-256 of the text of every row the page's query returns (all the columns it
  selects, joined tables and annotations included, and the one row past the page that decides
  the next cursor), computed by PostgreSQL. Exact whatever the list: same rows, same page.

The ETag is the key itself (`W/"<sha256 of build, request, marker>"`), so a revalidation is
answered with 304 from the marker alone, without the body. A body is stored only under the key
read *before* its rows (RecordMarker: a version token is never reused, and rows read after the
version are never older than it), or read in the same snapshot as its rows (RowsMarker:
see same_snapshot), so the cache never answers a row that changed since.

Public lists are also answered before DRF for anonymous clients (api/views/base.py): each process
remembers, per path and query string that DRF answered with a cacheable page, which marker
to read (`remember`/`remembered`), so a repeated query costs its marker and a cache read.
Filters and cursors were validated when DRF answered them; the same query string is valid again.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import connection, transaction
from django.db.models import QuerySet

from curation.record.selectors import record_version
from curation.server_cursors import server_bound_cursor

# Part of every key and ETag: change it when a list's bytes change for the same rows.
BUILD = "pages-2"  # pages-2: observations carry version_set
# Built pages share the record cache (API_RECORD_CACHE_SECONDS: its timeout; 0 turns both off):
# like record bytes, a key names one state of what it shows, so only memory bounds its life;
# search pages, unbounded in number, get API_SEARCH_CACHE_SECONDS (store_body).
CACHE = "records"

_FINGERPRINT_SQL = (
    "SELECT encode(sha256(convert_to(string_agg(page::text, chr(10)), 'UTF8')), 'hex'), count(*)"
    " FROM ({page}) AS page"
)


@dataclass(frozen=True)
class RecordMarker:
    """A page showing only observations of one paper: current while its record version is."""

    arxiv_id: str

    def read(self) -> str | None:
        """Return the paper's record version, or None for an unknown paper (no caching)."""
        version = record_version(self.arxiv_id)
        return None if version is None else f"record:{version.key}"

    @property
    def needs_snapshot(self) -> bool:
        """Return False: a version read before the rows is enough (see the module docstring)."""
        return False


@dataclass(frozen=True)
class RowsMarker:
    """Any page: the digest of the text of the rows its query reads."""

    sql: str
    params: tuple[Any, ...]

    @classmethod
    def of(cls, page: QuerySet[Any]) -> RowsMarker:
        """Return the marker of a page's query (its SQL, run again on every request)."""
        sql, params = page.query.get_compiler(using=page.db).as_sql()
        return cls(_FINGERPRINT_SQL.format(page=sql), tuple(params))

    def read(self) -> str:
        """Return the digest of the page's rows as the database holds them now."""
        with server_bound_cursor() as cursor:
            cursor.execute(self.sql, self.params)
            digest, count = cursor.fetchone()
        return f"rows:{count}:{digest or ''}"

    @property
    def needs_snapshot(self) -> bool:
        """Return True: the digest and the rows must be read from the same snapshot."""
        return True


Marker = RecordMarker | RowsMarker


@dataclass(frozen=True)
class Page:
    """Where a page's bytes are cached and the ETag they are served with."""

    key: str
    etag: str


def page_for(identity: str, marker_value: str) -> Page:
    """Return the cache key and ETag of the page a request (its absolute URI) reads."""
    digest = hashlib.sha256(f"{BUILD}\n{identity}\n{marker_value}".encode()).hexdigest()[:40]
    return Page(key=f"page:{digest}", etag=f'W/"{digest}"')


@contextmanager
def same_snapshot(marker: Marker) -> Iterator[None]:
    """Read the marker and the rows in one REPEATABLE READ transaction when they must agree.

    A RowsMarker digest read in one statement and rows read in the next could straddle a commit;
    the body would then be stored under a digest of other rows, and served whenever the rows
    came back to that state. One snapshot for both rules that out. Inside an outer transaction
    (tests) the isolation level cannot change: nothing else writes there.
    """
    if not marker.needs_snapshot or connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


# The last few bodies each process served, in front of the shared cache (no round trip for a
# popular page); safe because a key names one state of one page.
_LOCAL_SIZE = 16
_local: OrderedDict[str, bytes] = OrderedDict()
_local_lock = threading.Lock()


def _enabled() -> bool:
    return caches[CACHE].default_timeout != 0


def cached_body(page: Page) -> bytes | None:
    """Return the page's bytes if a process or the shared cache has them."""
    if not _enabled():
        return None
    with _local_lock:
        body = _local.get(page.key)
        if body is not None:
            _local.move_to_end(page.key)
            return body
    body = caches[CACHE].get(page.key)
    if body is not None:
        _keep_locally(page.key, body)
    return body


def store_body(page: Page, body: bytes, *, searched: bool = False) -> None:
    """Keep the page's bytes in the shared cache and this process.

    A page of a free-text search is kept API_SEARCH_CACHE_SECONDS only: every distinct search is
    one more entry, and a client can ask any number of them, where plain list pages are few.
    """
    if not _enabled():
        return
    if searched:
        caches[CACHE].set(page.key, body, settings.API_SEARCH_CACHE_SECONDS)
    else:
        caches[CACHE].set(page.key, body)
    _keep_locally(page.key, body)


def _keep_locally(key: str, body: bytes) -> None:
    with _local_lock:
        _local[key] = body
        _local.move_to_end(key)
        while len(_local) > _LOCAL_SIZE:
            _local.popitem(last=False)


# Per process: which marker answers a path and query string DRF validated and answered.
_MEMO_SIZE = 2048
_memo: OrderedDict[tuple[str, str], Marker] = OrderedDict()
_memo_lock = threading.Lock()


def remember(path: str, query: str, marker: Marker) -> None:
    """Note the marker of a query DRF answered with a page (valid filters and cursor)."""
    with _memo_lock:
        _memo[(path, query)] = marker
        _memo.move_to_end((path, query))
        while len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)


def remembered(path: str, query: str) -> Marker | None:
    """Return the marker of a query DRF already answered in this process, if any."""
    with _memo_lock:
        return _memo.get((path, query))


def forget_all() -> None:
    """Empty this process's memos (tests that swap caches or settings)."""
    with _memo_lock:
        _memo.clear()
    with _local_lock:
        _local.clear()
