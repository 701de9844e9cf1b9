"""The incremental OAI-PMH harvest of arXiv into the catalogue, resumable page by page.

Each page of records is stored in the same transaction that moves the harvest's state (its
resumption token), so a stopped harvest goes on from the page after the last one stored; a
finished one remembers the latest datestamp it saw, where the next (daily) harvest starts.
Papers citerec has ingested and that have a newer version now are asked for again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from django.db import transaction

from curation.audit import Actor
from curation.clients.arxiv import ArxivClient, ArxivError, ResumptionPoint
from curation.clients.arxiv.metadata import ArxivMetadata, DeletedRecord
from curation.ingestion.models import ACTIVE_STATES, HarvestState, PaperIngestion
from curation.queueing import queue_on_commit

from .metadata import metadata_delete, metadata_store
from .papers import papers_add

log = logging.getLogger(__name__)

HARVEST_REASON = "arXiv metadata harvest"
HARVEST_ARXIV = "curation.ingestion.tasks.harvest_arxiv"


@dataclass
class HarvestOutcome:
    """What one harvest did."""

    set_spec: str
    from_date: date | None
    resumed: bool = False
    pages: int = 0
    records: int = 0
    inserted: int = 0
    updated: int = 0
    deleted: int = 0
    last_datestamp: date | None = None
    new_versions: list[str] = field(default_factory=list)
    stored: int = 0  # pages stored with their token (empty ones too)
    stopped: bool = False  # by one of `stop_on`: what was stored stays, the token says where


def harvest_run(
    *,
    actor: Actor,
    reason: str,
    set_spec: str = "",
    from_date: date | None = None,
    client: ArxivClient | None = None,
    progress: Callable[[HarvestOutcome], None] | None = None,
    stop_on: tuple[type[BaseException], ...] = (),
) -> HarvestOutcome:
    """Harvest arXiv metadata since `from_date` (default: where the last harvest got to).

    An unfinished harvest of the same set is resumed from its resumption token unless a
    `from_date` is given; a token arXiv no longer honours restarts that harvest from its start.
    An exception of `stop_on` (a job's soft time limit) stops it cleanly: the pages stored
    stay, the page it was on is read again by the next run, and the outcome says `stopped`;
    one that stored a page queues that next run at once (`harvest_arxiv`, same set).
    New versions of ingested papers are queued as each page commits.
    """
    client = client or ArxivClient()
    state, _ = HarvestState.objects.get_or_create(set_spec=set_spec)
    token = ""
    if from_date is None and state.resumption_token:
        token, from_date = state.resumption_token, state.running_from
    elif from_date is None:
        from_date = state.last_datestamp
    outcome = HarvestOutcome(set_spec=set_spec, from_date=from_date, resumed=bool(token))
    HarvestState.objects.filter(pk=state.pk).update(running_from=from_date)
    try:
        try:
            _pages(client, state, outcome, token, actor, reason, progress)
        except ArxivError as exc:
            if not token or "resumption" not in str(exc).lower():
                raise
            log.warning(
                "harvest of %s: token refused (%s); starting again from %s",
                set_spec or "all",
                exc,
                from_date,
            )
            HarvestState.objects.filter(pk=state.pk).update(resumption_token="", cursor=0)
            outcome.resumed = False
            _pages(client, state, outcome, "", actor, reason, progress)
    except stop_on as exc:
        log.warning(
            "harvest of %s stopped after %s page(s): %r", set_spec or "all", outcome.stored, exc
        )
        outcome.stopped = True
        if outcome.stored:  # go on at once from the token, in a new job with its own time limit
            queue_on_commit(HARVEST_ARXIV, kwargs={"set_spec": set_spec})
    return outcome


def _pages(
    client: ArxivClient,
    state: HarvestState,
    outcome: HarvestOutcome,
    token: str,
    actor: Actor,
    reason: str,
    progress: Callable[[HarvestOutcome], None] | None,
) -> None:
    records: list[ArxivMetadata] = []
    deleted: list[DeletedRecord] = []
    items = client.harvest(
        from_date=outcome.from_date,
        set_spec=outcome.set_spec or None,
        resumption_token=token or None,
    )
    complete = False
    for item in items:
        if isinstance(item, ResumptionPoint):
            _store_page(state, outcome, records, deleted, item, actor, reason)
            records, deleted, complete = [], [], not item.token
            if progress:
                progress(outcome)
        elif isinstance(item, DeletedRecord):
            deleted.append(item)
        else:
            records.append(item)
    if not complete:  # nothing matched (no page at all): the harvest is complete all the same
        _store_page(state, outcome, records, deleted, None, actor, reason)


@transaction.atomic
def _store_page(
    state: HarvestState,
    outcome: HarvestOutcome,
    records: list[ArxivMetadata],
    deleted: list[DeletedRecord],
    point: ResumptionPoint | None,
    actor: Actor,
    reason: str,
) -> None:
    """Store one page and move the harvest's state with it (the last page: state finished)."""
    inserted, updated = metadata_store(items=records, actor=actor, reason=reason)
    outcome.deleted += (
        metadata_delete(records=deleted, actor=actor, reason=reason) if deleted else 0
    )
    outcome.pages += 1 if records or deleted else 0
    outcome.records += len(records) + len(deleted)
    outcome.inserted += inserted
    outcome.updated += updated
    stamps = [r.datestamp for r in records] + [d.datestamp for d in deleted]
    latest = max((stamp for stamp in stamps if stamp), default=None)
    if latest and (outcome.last_datestamp is None or latest > outcome.last_datestamp):
        outcome.last_datestamp = latest
    outcome.new_versions += _new_versions(records, actor, reason)
    locked = HarvestState.objects.select_for_update().get(pk=state.pk)
    locked.harvested += len(records)
    locked.deleted += len(deleted)
    if point is not None and point.token:
        locked.resumption_token, locked.cursor = point.token, point.cursor or 0
        locked.complete_list_size = point.complete_list_size
    else:  # the list is complete: the next harvest starts at the latest datestamp seen
        locked.resumption_token, locked.cursor, locked.running_from = "", 0, None
        if outcome.last_datestamp and (
            locked.last_datestamp is None or outcome.last_datestamp > locked.last_datestamp
        ):
            locked.last_datestamp = outcome.last_datestamp
    locked.save()
    outcome.stored += 1


def _new_versions(records: list[ArxivMetadata], actor: Actor, reason: str) -> list[str]:
    """Ask again for ingested papers of which this page shows a newer version."""
    latest = {r.arxiv_id: r.latest_version or 0 for r in records}
    if not latest:
        return []
    stale = [
        arxiv_id
        for arxiv_id, version in PaperIngestion.objects.filter(paper__arxiv_id__in=list(latest))
        .exclude(state__in=ACTIVE_STATES)
        .values_list("paper__arxiv_id", "version")
        if version is not None and latest[arxiv_id] > version
    ]
    if not stale:
        return []
    # Queued once this page commits (a page that rolls back asks for nothing).
    return papers_add(arxiv_ids=stale, actor=actor, reason=f"{reason}: new arXiv version").queued
