"""Ask each named source about one work; read-only, and never inside a transaction.

Each `ask_*` returns a SourceAnswer (what a receipt records) or None when the source cannot be
asked about this work at all (no DOI for Crossref, no arXiv id for arXiv): no query, no receipt.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from django.utils import timezone

from curation import notice_events as ev

from .models import NoticeSource, ReceiptOutcome, RetractionWatchRecord
from .parsers.arxiv_withdrawals import withdrawal_event
from .parsers.crossref_updates import crossref_events, crossref_notices_params
from .selectors import RetractionWatchLookup, WorkKeys, retraction_watch_lookup

logger = logging.getLogger(__name__)

CROSSREF_NOTICE_ROWS = "100"  # notices that update one DOI: a handful in practice


class CrossrefLike(Protocol):
    """The part of curation.clients.crossref.client.CrossrefClient a refresh uses."""

    def work(self, doi: str) -> dict[str, Any] | None: ...
    def works(self, params: dict[str, str]) -> dict[str, Any]: ...


@dataclass(frozen=True)
class SourceAnswer:
    """One query of one source: its outcome and, when it answered, the events it reported."""

    source: NoticeSource
    outcome: ReceiptOutcome
    observed_at: datetime
    query: str
    events: tuple[ev.ReportedEvent, ...] = ()
    superseded: frozenset[str] = field(default_factory=frozenset)  # source record ids
    detail: str = ""

    @property
    def answered(self) -> bool:
        """Return whether the source answered."""
        return self.outcome == ReceiptOutcome.ANSWERED


def ask_sources(
    keys: WorkKeys,
    sources: Iterable[str],
    client: CrossrefLike | None = None,
    retraction_watch: RetractionWatchLookup | None = None,
) -> list[SourceAnswer]:
    """Ask the chosen sources about a work and return their answers (failures included).

    `retraction_watch`: the database's records read once for a batch of works
    (`retraction_watch_lookup`); without it this work's are read now.
    """
    askers = {
        NoticeSource.CROSSREF: lambda: ask_crossref(keys, client),
        NoticeSource.RETRACTION_WATCH: lambda: ask_retraction_watch(keys, retraction_watch),
        NoticeSource.ARXIV: lambda: ask_arxiv(keys),
    }
    answers = [askers[NoticeSource(source)]() for source in sources]
    return [a for a in answers if a is not None]


class _NoCache:
    """A response cache that keeps nothing: a receipt must be an answer received now."""

    def get(self, key: str) -> dict[str, Any] | None:
        """Return nothing: every notice query goes to Crossref."""
        return None

    def set(self, key: str, value: dict[str, Any], ttl: float) -> None:
        """Keep nothing."""


_client: CrossrefLike | None = None


def notices_client() -> CrossrefLike:
    """Return the process-wide Crossref client for notices: throttled like the others, uncached."""
    # The shared client caches answers for days; a notice refresh must see today's Crossref,
    # or its receipt time would claim a freshness it does not have.
    global _client
    if _client is None:
        from curation.clients.crossref.client import CrossrefClient

        _client = CrossrefClient(cache=_NoCache())
    return _client


def ask_crossref(keys: WorkKeys, client: CrossrefLike | None) -> SourceAnswer | None:
    """Ask Crossref for the work's `updated-by` and for notices that update its DOI."""
    from curation.clients.crossref.client import CrossrefError, CrossrefOffline

    doi = keys.crossref_doi
    if doi is None:
        return None  # arXiv DOIs are DataCite's, and an unpublished preprint has no other
    answer = SourceAnswer(NoticeSource.CROSSREF, ReceiptOutcome.FAILED, timezone.now(), doi)
    try:
        api = client or notices_client()
        message = api.work(doi)
        params = crossref_notices_params(doi)  # None for a DOI with a comma: see there
        notices = api.works({**params, "rows": CROSSREF_NOTICE_ROWS}) if params else None
        found = crossref_events(work_doi=doi, work_message=message, notices=notices)
    except CrossrefOffline:
        return replace(answer, outcome=ReceiptOutcome.OFFLINE, detail="offline mode")
    except CrossrefError as exc:
        return replace(answer, detail=f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a malformed answer is a failed query, not a failed refresh
        logger.exception("Crossref answer for %s could not be read", doi)
        return replace(answer, detail=f"unreadable answer: {type(exc).__name__}: {exc}")
    if message is None and not found:
        # Crossref does not hold the DOI: it can say nothing about the work's standing.
        return replace(answer, outcome=ReceiptOutcome.NOT_FOUND, observed_at=timezone.now())
    detail = "" if params else "DOI has a comma: only the work's updated-by was read"
    return replace(
        answer,
        outcome=ReceiptOutcome.ANSWERED,
        observed_at=timezone.now(),
        events=tuple(found),
        detail=detail,
    )


def ask_retraction_watch(
    keys: WorkKeys, lookup: RetractionWatchLookup | None = None
) -> SourceAnswer | None:
    """Look the work's DOIs up in the imported Retraction Watch database."""
    if not keys.dois:
        return None
    query = " ".join(sorted(keys.dois))
    lookup = lookup or retraction_watch_lookup(keys.dois)
    run = lookup.run
    now = timezone.now()
    if run is None:
        return SourceAnswer(
            NoticeSource.RETRACTION_WATCH,
            ReceiptOutcome.FAILED,
            now,
            query,
            detail="the Retraction Watch database has not been imported",
        )
    records = lookup.records(keys.dois)
    return SourceAnswer(
        NoticeSource.RETRACTION_WATCH,
        ReceiptOutcome.ANSWERED,
        now,
        query,
        events=tuple(_rw_event(r) for r in records),
        superseded=frozenset(str(r.record_id) for r in records if r.superseded),
        detail=f"import of {run.finished_at:%Y-%m-%dT%H:%M:%SZ} ({run.file_name})",
    )


def _rw_event(record: RetractionWatchRecord) -> ev.ReportedEvent:
    return ev.ReportedEvent(
        type=record.event_type,
        source="retraction_watch",
        work_doi=record.original_doi,
        notice_doi=record.notice_doi,
        date=record.retraction_date,
        reasons=tuple(record.reasons),
        source_record_id=str(record.record_id),
    )


def ask_arxiv(keys: WorkKeys) -> SourceAnswer | None:
    """Read a withdrawal of an arXiv work from the local catalogue (comment or version)."""
    if keys.arxiv_id is None:
        return None
    now = timezone.now()
    paper = keys.paper
    if paper is None or not (paper.in_catalogue or paper.comments):
        return SourceAnswer(
            NoticeSource.ARXIV,
            ReceiptOutcome.NOT_FOUND,
            now,
            keys.arxiv_id,
            detail="not in the local arXiv catalogue",
        )
    version = [{"version": f"v{paper.latest_version}"}] if paper.latest_version else []
    event = withdrawal_event(
        {"id": paper.arxiv_id, "comments": paper.comments or None, "versions": version}
    )
    if event is not None and event.date is None and paper.last_updated is not None:
        # The catalogue keeps no version dates; a withdrawal is the paper's last update.
        event = replace(event, date=paper.last_updated.date())
    return SourceAnswer(
        NoticeSource.ARXIV,
        ReceiptOutcome.ANSWERED,
        now,
        paper.arxiv_id,
        events=(event,) if event is not None else (),
    )
