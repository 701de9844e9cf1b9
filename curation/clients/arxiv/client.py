"""arXiv client: OAI-PMH metadata (arXivRaw) and e-prints, polite, shared-throttled, offline-aware.

arXiv asks automated clients for one request every 3 s from the whole deployment, so every
request, harvest page or e-print, waits its turn in one throttle (Redis-shared when REDIS_URL
is set) and carries a User-Agent naming the deployment's contact. Metadata for one paper comes
from OAI-PMH GetRecord rather than the arXiv API's Atom feed: the same arXivRaw format and
parser as the harvest, with every version's date and size, from the same endpoint.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any

import httpx2
from django.conf import settings
from oaipmh_scythe import exceptions as oai_errors
from oaipmh_scythe.iterator import OAIResponseIterator

from curation.clients.arxiv.errors import (
    ArxivBadRecord,
    ArxivError,
    ArxivNotFound,
    ArxivOffline,
    EprintTooLarge,
)
from curation.clients.arxiv.metadata import (
    OAI_ID_PREFIX,
    OAI_NS,
    ArxivMetadata,
    DeletedRecord,
    ResumptionPoint,
    parse_record,
)
from curation.clients.arxiv.oai import OaiScythe
from curation.clients.arxiv.store import SourceStore
from curation.clients.arxiv.transport import BodyTooLarge, PoliteTransport, RetryPolicy, user_agent
from curation.clients.crossref.throttle import (
    LocalThrottle,
    RedisThrottle,
    Throttle,
    redis_from_settings,
)
from curation.references.identifiers import parse_arxiv

log = logging.getLogger(__name__)

SOURCE = "arxiv"
METADATA_PREFIX = "arXivRaw"
# An OAI page of arXivRaw holds about a thousand records, a few MB; anything far past that is
# not a page we can use.
MAX_PAGE_BYTES = 64 * 1024 * 1024
_OAI = f"{{{OAI_NS}}}"
# arXiv names the version it served in the file name: 'filename="arXiv-2401.00001v2.tar.gz"'.
_SERVED_VERSION = re.compile(r"filename\*?=[^;]*?(?<=\d)v(\d+)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Eprint:
    """A paper's source as arXiv serves it (a .tar.gz, a .gz or a PDF), and where it came from."""

    data: bytes
    content_type: str | None
    sha256: str
    from_store: bool


class ArxivClient:
    """Read arXiv metadata and e-prints politely; raise ArxivError subclasses on failure."""

    def __init__(
        self,
        *,
        oai_url: str | None = None,
        eprint_url: str | None = None,
        interval: float | None = None,
        contact: str | None = None,
        offline: bool | None = None,
        store: SourceStore | None = None,
        max_eprint_bytes: int | None = None,
        timeout: float | None = None,
        max_retries: int = 4,
        backoff: float = 2.0,
        max_backoff: float = 60.0,
        max_retry_after: float = 300.0,
        throttle: Throttle | None = None,
        transport: httpx2.BaseTransport | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.oai_url = (oai_url or settings.ARXIV_OAI_URL).rstrip("/")
        self.eprint_url = (eprint_url or settings.ARXIV_EPRINT_URL).rstrip("/")
        self.interval = settings.ARXIV_REQUEST_INTERVAL if interval is None else interval
        self.offline = settings.CITEREC_OFFLINE if offline is None else offline
        self.store = store or SourceStore(Path(settings.CITEREC_SOURCE_STORE))
        self.max_eprint_bytes = (
            settings.CITEREC_MAX_EPRINT_BYTES if max_eprint_bytes is None else max_eprint_bytes
        )
        self.timeout = settings.ARXIV_TIMEOUT if timeout is None else timeout
        self.user_agent = user_agent(contact)
        self.policy = RetryPolicy(max_retries, backoff, max_backoff, max_retry_after)
        self._throttle, self._transport = throttle, transport
        self._clock, self._sleep = clock, sleep

    # --- public API -----------------------------------------------------------------------

    def harvest(
        self,
        *,
        from_date: date | None,
        until: date | None = None,
        set_spec: str | None = None,
        resumption_token: str | None = None,
    ) -> Iterator[ArxivMetadata | DeletedRecord | ResumptionPoint]:
        """Yield arXivRaw records changed in [from_date, until], page by page (ListRecords).

        Each page's records come first, then a ResumptionPoint: persist it with what the page
        held, and resume later with its token (then from_date, until and set_spec are ignored,
        as OAI-PMH asks). The last page's point has token None. No matching records yields
        nothing. One page is held in memory at a time.
        """
        self._refuse_if_offline("ListRecords")
        if resumption_token:
            query = {"verb": "ListRecords", "resumptionToken": resumption_token}
        else:
            query = {"verb": "ListRecords", "metadataPrefix": METADATA_PREFIX}
            query |= {"from": from_date.isoformat()} if from_date else {}
            query |= {"until": until.isoformat()} if until else {}
            query |= {"set": set_spec} if set_spec else {}
        token = resumption_token
        try:
            for response in OAIResponseIterator(self._scythe, query):
                root = response.xml
                yield from _page_records(root)
                point = _resumption_point(root)
                token = point.token
                yield point
        except oai_errors.NoRecordsMatch:
            return
        except oai_errors.BadResumptionToken as exc:
            raise ArxivError(f"arXiv refused the resumption token {token!r}: {exc}") from exc
        except (oai_errors.OAIPMHException, httpx2.HTTPError) as exc:
            raise ArxivError(f"ListRecords {query}: {exc.__class__.__name__}: {exc}") from exc

    def metadata(self, arxiv_id: str) -> ArxivMetadata:
        """Return a paper's arXivRaw metadata (OAI-PMH GetRecord); ArxivNotFound if none."""
        clean = _clean_id(arxiv_id)
        self._refuse_if_offline(f"GetRecord {clean}")
        query = {
            "verb": "GetRecord",
            "identifier": OAI_ID_PREFIX + clean,
            "metadataPrefix": METADATA_PREFIX,
        }
        try:
            root = self._scythe.harvest(query).xml
        except oai_errors.IdDoesNotExist as exc:
            raise ArxivNotFound(f"arXiv has no paper {clean}") from exc
        except (oai_errors.OAIPMHException, httpx2.HTTPError) as exc:
            raise ArxivError(f"GetRecord {clean}: {exc.__class__.__name__}: {exc}") from exc
        record = root.find(f"{_OAI}GetRecord/{_OAI}record")
        if record is None:
            raise ArxivError(f"GetRecord {clean}: the answer holds no record")
        item = parse_record(record)
        if isinstance(item, DeletedRecord):
            raise ArxivNotFound(f"arXiv reports {clean} deleted")
        return item

    def fetch_eprint(self, arxiv_id: str, version: int | None = None) -> Eprint:
        """Return the paper's source (that version, else the latest): from the store if kept.

        A source fetched is kept in the store under its sha256 and indexed by id and version,
        so it is never fetched again. Offline, a stored source is still returned.
        """
        parsed = parse_arxiv(arxiv_id)
        if parsed is None:
            raise ArxivNotFound(f"{arxiv_id!r} is not an arXiv id")
        clean, version = parsed.id, version if version is not None else parsed.version
        name = f"{clean}v{version}" if version else clean
        entry = self.store.lookup_entry(clean, version)
        if entry is not None:
            data = self.store.get(entry.sha256)
            if data is not None:
                return Eprint(data, entry.content_type, entry.sha256, from_store=True)
        self._refuse_if_offline(f"e-print {name} (not in the store)")
        url = f"{self.eprint_url}/{name}"
        try:
            with self._eprint_http.stream("GET", url) as response:
                if response.status_code == 404:
                    raise ArxivNotFound(f"arXiv has no e-print {name} (HTTP 404)")
                if response.status_code >= 400:
                    raise ArxivError(f"GET {url}: HTTP {response.status_code}")
                # As sent: a .gz labelled Content-Encoding: x-gzip is kept, not unpacked.
                data = b"".join(response.iter_raw())
        except BodyTooLarge:
            raise EprintTooLarge(
                f"arXiv:{name}: the e-print is larger than the {_mib(self.max_eprint_bytes)} "
                "cap (CITEREC_MAX_EPRINT_BYTES); nothing was kept"
            ) from None
        except httpx2.HTTPError as exc:
            raise ArxivError(f"GET {url}: {exc.__class__.__name__}: {exc}") from exc
        content_type = response.headers.get("Content-Type")
        sha = self.store.put(data)
        self.store.remember(clean, version, sha, content_type)
        if version is None:
            served = _SERVED_VERSION.search(response.headers.get("Content-Disposition", ""))
            if served:
                self.store.remember(clean, int(served[1]), sha, content_type)
        return Eprint(data, content_type, sha, from_store=False)

    def close(self) -> None:
        """Close the HTTP connection pools (if any were opened)."""
        for name in ("_oai_http", "_eprint_http"):
            if name in self.__dict__:
                self.__dict__[name].close()

    def __enter__(self) -> ArxivClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- internals ------------------------------------------------------------------------

    def _refuse_if_offline(self, what: str) -> None:
        if self.offline:
            raise ArxivOffline(f"offline mode (CITEREC_OFFLINE=1): {what} not fetched")

    @cached_property
    def throttle(self) -> Throttle:
        """Return the throttle every request waits on (shared through Redis when configured)."""
        if self._throttle is not None:
            return self._throttle
        rate = 1.0 / self.interval if self.interval > 0 else 0.0
        redis_client = redis_from_settings()
        if redis_client is None:
            return LocalThrottle(rate, clock=self._clock, sleep=self._sleep)
        # The deployment's REDIS_KEY_PREFIX first, as the broker's and the cache's keys have it.
        prefix = f"{settings.REDIS_KEY_PREFIX}:" if settings.REDIS_KEY_PREFIX else ""
        key = f"{prefix}citerec:throttle:{SOURCE}"
        return RedisThrottle(redis_client, key, rate, clock=self._clock, sleep=self._sleep)

    def _http(self, max_body: int, accept: str, extra: dict[str, str]) -> httpx2.Client:
        transport = PoliteTransport(
            throttle=self.throttle,
            inner=self._transport or httpx2.HTTPTransport(),
            max_body=max_body,
            offline=self.offline,
            clock=self._clock,
            sleep=self._sleep,
            policy=self.policy,
        )
        headers = {"User-Agent": self.user_agent, "Accept": accept, **extra}
        return httpx2.Client(
            transport=transport, headers=headers, timeout=self.timeout, follow_redirects=True
        )

    @cached_property
    def _oai_http(self) -> httpx2.Client:
        return self._http(MAX_PAGE_BYTES, "text/xml, application/xml", {})

    @cached_property
    def _eprint_http(self) -> httpx2.Client:
        # identity: the bytes arXiv stores, not a transfer-compressed copy of them.
        return self._http(self.max_eprint_bytes, "*/*", {"Accept-Encoding": "identity"})

    @cached_property
    def _scythe(self) -> OaiScythe:
        return OaiScythe(self.oai_url, self._oai_http)


def _clean_id(arxiv_id: str) -> str:
    parsed = parse_arxiv(arxiv_id)
    if parsed is None:
        raise ArxivNotFound(f"{arxiv_id!r} is not an arXiv id")
    return parsed.id


def _page_records(root: Any) -> Iterator[ArxivMetadata | DeletedRecord]:
    """Yield a ListRecords page's records; one arXiv cannot describe is logged and skipped."""
    for record in root.iterfind(f"{_OAI}ListRecords/{_OAI}record"):
        try:
            yield parse_record(record)
        except ArxivBadRecord as exc:
            # One odd record must not stop a harvest of millions; the log names it.
            log.warning("arXiv harvest: record skipped: %s", exc)


def _resumption_point(root: Any) -> ResumptionPoint:
    element = root.find(f"{_OAI}ListRecords/{_OAI}resumptionToken")
    if element is None:
        return ResumptionPoint(None, None, None)
    return ResumptionPoint(
        (element.text or "").strip() or None,
        _int(element.get("cursor")),
        _int(element.get("completeListSize")),
    )


def _int(value: str | None) -> int | None:
    return int(value) if value and value.strip().isdigit() else None


def _mib(size: int) -> str:
    return f"{size / 1024 / 1024:g} MiB" if size >= 1024 * 1024 else f"{size:,} bytes"
