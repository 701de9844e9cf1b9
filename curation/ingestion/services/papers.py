"""One arXiv paper end to end: metadata, e-print, source bibliography, observations, verdicts.

The steps that call out (metadata, e-print, GROBID) run outside any transaction; each write is
its own short transaction through the curated services. A worker killed at any point leaves the
paper as it was or with the reference list imported: the job runs again (acks_late) and redoes
only what is missing (re-importing the same list changes nothing; only references without a
verdict are resolved).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from curation.audit import Actor, audited
from curation.clients import grobid
from curation.clients.arxiv import ArxivClient, ArxivNotFound, ArxivOffline, EprintTooLarge
from curation.ingestion.models import ACTIVE_STATES, IngestionState, PaperIngestion
from curation.ingestion.selectors import NOT_ON_ARXIV, stale_ingestions
from curation.ingestion.sources import archive_limits, entries_from_bibliography
from curation.limits import MAX_INTERRUPTED, killed_worker_reason
from curation.models import Observation, Paper
from curation.queueing import queue_on_commit
from curation.references.identifiers import clean_arxiv_id, not_an_arxiv_id
from curation.references.latex_source import (
    PdfOnlySource,
    SourceArchiveError,
    bibliography_from_eprint,
)
from curation.references.listed import ListedReference
from curation.resolution.services import observations_resolve_new
from curation.services.reference_lists import reference_list_import

from .metadata import metadata_store

ARXIV_SOURCE = "arxiv_source"  # v1 `citation.source` of observations read from a paper's source
PDF_ONLY_MESSAGE = "PDF only: no source bibliography"
NO_BIBLIOGRAPHY = "no bibliography found in the source"
MAX_IDS = 500  # arXiv ids one request may ask for (the admin form, the API)
ADD_REASON = "paper added from arXiv"
INGEST_PAPER = "curation.ingestion.tasks.ingest_paper"


class PaperBusy(Exception):
    """Another job is ingesting this paper right now: try again later (never drop the job)."""


@dataclass(frozen=True)
class RefusedId:
    """An input that is not an arXiv id, and why."""

    given: str
    why: str


@dataclass
class RequestOutcome:
    """What asking for papers did: queued now, already on their way, refused."""

    queued: list[str] = field(default_factory=list)
    active: list[str] = field(default_factory=list)
    refused: list[RefusedId] = field(default_factory=list)


@dataclass
class IngestOutcome:
    """What ingesting one paper did (the task's result, the command's line)."""

    arxiv_id: str
    state: str
    version: int | None = None
    references: int = 0
    created: int = 0
    retired: int = 0
    resolved: int = 0
    skipped: str = ""
    error: str = ""

    def summary(self) -> dict[str, Any]:
        """Return the outcome as a JSON-able dict."""
        return {k: v for k, v in self.__dict__.items() if v not in ("", None)}


@transaction.atomic
def ingestion_request(
    *, arxiv_ids: Sequence[str], actor: Actor, reason: str, force: bool = False
) -> RequestOutcome:
    """Ask for these papers to be built from arXiv; return which to queue now.

    Anything that is not an arXiv id is refused (nothing is created for it). A paper already
    on its way is not queued twice; `force` queues it again all the same (a stuck ingestion).
    """
    outcome = RequestOutcome()
    wanted: list[str] = []
    for given in arxiv_ids:
        arxiv_id = clean_arxiv_id(given)
        if arxiv_id is None:
            outcome.refused.append(RefusedId(given, not_an_arxiv_id(given)))
        elif arxiv_id not in wanted:
            wanted.append(arxiv_id)
    now = timezone.now()
    for arxiv_id in wanted:
        ingestion, created = ingestion_for(arxiv_id, actor, reason)
        if not created and ingestion.state in ACTIVE_STATES and not force:
            outcome.active.append(arxiv_id)
            continue
        ingestion.state, ingestion.error = IngestionState.QUEUED, ""
        ingestion.requested_at, ingestion.requested_by = now, actor.name
        ingestion.save(
            update_fields=["state", "error", "requested_at", "requested_by", "updated_at"]
        )
        outcome.queued.append(arxiv_id)
    return outcome


def papers_add(
    *, arxiv_ids: Sequence[str], actor: Actor, reason: str = ADD_REASON, force: bool = False
) -> RequestOutcome:
    """Ask for papers (`ingestion_request`) and queue a job for each once the request commits.

    Every face asks for papers this way (the admin, the API, `add_papers`, the stale sweep, a
    harvest's new versions); `add_papers --sync` asks with `ingestion_request` and ingests itself.
    """
    with transaction.atomic():
        outcome = ingestion_request(arxiv_ids=arxiv_ids, actor=actor, reason=reason, force=force)
        for arxiv_id in outcome.queued:
            queue_on_commit(INGEST_PAPER, [arxiv_id], {"reason": reason, "force": force})
    return outcome


def stale_ingestions_requeue(*, actor: Actor, minutes: int | None = None) -> list[str]:
    """Queue again papers waiting longer than `minutes` (default: the setting
    INGESTION_STALE_MINUTES) with no job at work on them, and PDF-only papers once GROBID is
    configured; return their ids."""
    if minutes is None:
        minutes = settings.INGESTION_STALE_MINUTES
    stale = stale_ingestions(minutes=minutes) + pdf_only_waiting()
    if stale:
        papers_add(arxiv_ids=stale, actor=actor, reason="ingestion queued again", force=True)
    return stale


def ingestion_for(arxiv_id: str, actor: Actor, reason: str) -> tuple[PaperIngestion, bool]:
    """Return the paper's ingestion, locked, and whether it is new (the paper made if need be).

    Call inside a transaction.
    """
    with audited(actor, reason):
        paper, _ = Paper.objects.get_or_create(arxiv_id=arxiv_id)
    ingestion, created = PaperIngestion.objects.select_for_update().get_or_create(
        paper=paper, defaults={"requested_at": timezone.now(), "requested_by": actor.name}
    )
    ingestion.paper = paper
    return ingestion, created


def set_fields(ingestion: PaperIngestion, **values: Any) -> None:
    for name, value in values.items():
        setattr(ingestion, name, value)
    ingestion.save(update_fields=[*values, "updated_at"])


def begin(ingestion: PaperIngestion, **values: Any) -> None:
    """Mark an attempt at the paper as started (and counted)."""
    set_fields(ingestion, state=IngestionState.FETCHING, started_at=timezone.now(),
               attempts=ingestion.attempts + 1, **values)  # fmt: skip


def never_ended(ingestion: PaperIngestion) -> bool:
    """Return whether the last attempt started and never ended (every ending sets finished_at)."""
    started, finished = ingestion.started_at, ingestion.finished_at
    return started is not None and (finished is None or finished < started)


def interrupted_message(count: int) -> str:
    """Say why a paper is not read again after `count` attempts that never ended."""
    return killed_worker_reason(
        count, "attempts", "not tried again by itself, ask for the paper again to retry"
    )


def finish(
    ingestion: PaperIngestion, outcome: IngestOutcome, state: str, error: str = ""
) -> IngestOutcome:
    set_fields(ingestion, state=state, error=error, finished_at=timezone.now(), interrupted=0)
    outcome.state, outcome.error = state, error
    return outcome


@contextmanager
def paper_lock(arxiv_id: str) -> Iterator[bool]:
    """Hold the paper's ingestion lock while the block runs; yield False if another has it.

    Two jobs for one paper (a re-delivery, a forced re-read) would otherwise both create its
    new references, and one would fail on their identity.
    """
    with session_lock(f"ingest:{arxiv_id}") as taken:
        yield taken


@contextmanager
def session_lock(name: str) -> Iterator[bool]:
    """Hold the lock `name` while the block runs; yield False if another session has it.

    A session lock, not a row lock: it is held across the network calls and the short
    transactions of one job without keeping a transaction open, and it goes with the
    connection if the worker dies.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(hashtext(%s))", [name])
        taken = bool(cursor.fetchone()[0])
    try:
        yield taken
    finally:
        if taken:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(hashtext(%s))", [name])


def paper_ingest(
    *,
    arxiv_id: str,
    actor: Actor,
    reason: str,
    client: ArxivClient | None = None,
    force: bool = False,
) -> IngestOutcome:
    """Build one paper's observations from its arXiv source and resolve them.

    Permanent failures (no such paper, a refused archive, offline with nothing stored) end in
    state `failed` with the reason; a PDF without GROBID ends in `pdf_only`. arXiv or GROBID
    not answering propagates (ArxivUnavailable, GrobidBusy/Unavailable) for the job to retry
    later, and so does PaperBusy while another job is ingesting the same paper.
    """
    with paper_lock(arxiv_id) as taken:
        if not taken:
            raise PaperBusy(f"arXiv:{arxiv_id} is being ingested by another job")
        return _ingest_locked(arxiv_id, actor, reason, client or ArxivClient(), force)


def _ingest_locked(
    arxiv_id: str, actor: Actor, reason: str, client: ArxivClient, force: bool
) -> IngestOutcome:
    ingestion = PaperIngestion.objects.select_related("paper").get(paper__arxiv_id=arxiv_id)
    outcome = IngestOutcome(arxiv_id=arxiv_id, state=ingestion.state)
    interrupted = ingestion.interrupted + 1 if never_ended(ingestion) else 0
    if interrupted >= MAX_INTERRUPTED:
        return finish(ingestion, outcome, IngestionState.FAILED, interrupted_message(interrupted))
    begin(ingestion, interrupted=interrupted)
    try:
        metadata = client.metadata(arxiv_id)
    except ArxivNotFound:
        not_on_arxiv = NOT_ON_ARXIV.format(arxiv_id=arxiv_id)
        return finish(ingestion, outcome, IngestionState.FAILED, not_on_arxiv)
    except ArxivOffline:
        metadata = None  # offline: a source already in the store is still read
    if metadata is not None:
        metadata_store(items=[metadata], actor=actor, reason=reason)
    version = metadata.latest_version if metadata is not None else None
    outcome.version = version
    if (
        not force
        and version is not None
        and ingestion.version == version
        and _read_before(ingestion)
    ):
        outcome.skipped = f"version {version} was ingested already"
        return finish(ingestion, outcome, IngestionState.DONE)
    try:
        eprint = client.fetch_eprint(arxiv_id, version)
    except (ArxivOffline, ArxivNotFound, EprintTooLarge) as exc:
        why = OFFLINE_NO_SOURCE if isinstance(exc, ArxivOffline) else str(exc)
        if not force and _read_before(ingestion):
            # A reading made before (a source bundle's, which knows no version) stands: that
            # arXiv cannot give the source now is no reason to call the paper failed.
            outcome.skipped = f"the source read before is kept ({why})"
            return finish(ingestion, outcome, IngestionState.DONE)
        return finish(ingestion, outcome, IngestionState.FAILED, why)
    name = f"arXiv:{arxiv_id}" + (f"v{version}" if version else "")
    set_fields(ingestion, source_sha256=eprint.sha256, version=version)
    try:
        entries = source_entries(ingestion, outcome, eprint.data, name)
    except PdfOnlySource:
        return _pdf_references(ingestion, outcome, eprint.data, name, actor, reason)
    if entries is None:
        return outcome
    return _import_and_resolve(ingestion, outcome, entries, actor, reason)


OFFLINE_NO_SOURCE = "offline (CITEREC_OFFLINE=1) and the source is not in the store"


def _read_before(ingestion: PaperIngestion) -> bool:
    """Return whether the paper's source was read to its end before, without an error."""
    return (
        ingestion.reference_count is not None and ingestion.error == "" and bool(ingestion.method)
    )


def source_entries(
    ingestion: PaperIngestion, outcome: IngestOutcome, data: bytes, name: str
) -> list[ListedReference] | None:
    """Return the e-print's bibliography, noting on the ingestion where it was found.

    None when the e-print is refused: the ingestion has failed, saying why. PdfOnlySource
    propagates (source kind noted): what a PDF-only paper gets is the caller's to say.
    """
    try:
        bibliography = bibliography_from_eprint(data, name=name, limits=archive_limits())
    except PdfOnlySource:
        set_fields(ingestion, source_kind="pdf")
        raise
    except SourceArchiveError as exc:
        set_fields(ingestion, source_kind="refused")
        finish(ingestion, outcome, IngestionState.FAILED, str(exc))
        return None
    set_fields(ingestion, source_kind="tex", method=bibliography.method,
               main_tex=(bibliography.main_tex or "")[:255], warnings=list(bibliography.warnings)[:50])  # fmt: skip
    return entries_from_bibliography(bibliography)


def _pdf_references(
    ingestion: PaperIngestion, outcome: IngestOutcome, pdf: bytes, name: str, actor: Actor,
    reason: str,
) -> IngestOutcome:  # fmt: skip
    """Read a PDF-only paper's references with GROBID, or say it waits for GROBID."""
    url = getattr(settings, "GROBID_URL", "")
    if not url:
        return finish(ingestion, outcome, IngestionState.PDF_ONLY, PDF_ONLY_MESSAGE)
    try:
        tei = grobid.process_references(pdf, url=url, timeout=settings.GROBID_TIMEOUT)
        entries = grobid.listed_references(tei, name=name)
    except (grobid.GrobidBusy, grobid.GrobidUnavailable):
        raise  # GROBID is busy or away: the job tries again later
    except grobid.GrobidError as exc:  # it answered, and the answer says this PDF will not do
        return finish(ingestion, outcome, IngestionState.FAILED, f"{name}: GROBID: {exc}")
    set_fields(ingestion, method="grobid", main_tex="")
    return _import_and_resolve(ingestion, outcome, entries, actor, reason)


def _import_and_resolve(
    ingestion: PaperIngestion,
    outcome: IngestOutcome,
    entries: Sequence[ListedReference],
    actor: Actor,
    reason: str,
) -> IngestOutcome:
    """Import the list as the paper's `arxiv_source` observations, then resolve the new ones."""
    source_entries_import(ingestion, outcome, entries, actor, reason)
    outcome.resolved = observations_resolve_new(
        observations=Observation.objects.filter(paper=ingestion.paper, source=ARXIV_SOURCE),
        actor=actor,
        reason=reason,
    )
    error = "" if entries else NO_BIBLIOGRAPHY
    return finish(ingestion, outcome, IngestionState.DONE, error)


def source_entries_import(
    ingestion: PaperIngestion,
    outcome: IngestOutcome,
    entries: Sequence[ListedReference],
    actor: Actor,
    reason: str,
) -> None:
    """Import the list as the paper's `arxiv_source` observations (resolution comes next)."""
    outcome.references = len(entries)
    if entries:
        imported = reference_list_import(
            arxiv_id=ingestion.paper.arxiv_id, references=entries, actor=actor, reason=reason,
            source=ARXIV_SOURCE, supersede_imported=True,
        )  # fmt: skip
        outcome.created, outcome.retired = imported.created, imported.retired + imported.superseded
        if imported.warnings or imported.superseded:
            notes = [*ingestion.warnings, *imported.warnings]
            if imported.superseded:
                notes.append(
                    f"{imported.superseded} observations of an imported record retired: the source's list replaces them"
                )
            set_fields(ingestion, warnings=notes[:50])
    set_fields(ingestion, state=IngestionState.RESOLVING, reference_count=len(entries))


def ingestion_failed(*, arxiv_id: str, error: str) -> None:
    """Record that a paper's job gave up after its retries, with the last error."""
    PaperIngestion.objects.filter(paper__arxiv_id=arxiv_id).update(
        state=IngestionState.FAILED, error=error[:2000], finished_at=timezone.now(),
        updated_at=timezone.now(), interrupted=0,
    )  # fmt: skip


def ingestion_retry_later(*, arxiv_id: str, error: str) -> None:
    """Record that a paper waits for a retry (arXiv or GROBID did not answer)."""
    now = timezone.now()  # the attempt ended (an outage), so it was not interrupted
    PaperIngestion.objects.filter(paper__arxiv_id=arxiv_id).update(
        state=IngestionState.QUEUED, error=f"will retry: {error}"[:2000], updated_at=now,
        finished_at=now, interrupted=0,
    )  # fmt: skip


def pdf_only_waiting() -> list[str]:
    """Return the PDF-only papers to ask GROBID about (when GROBID_URL is set)."""
    if not getattr(settings, "GROBID_URL", ""):
        return []
    return list(
        PaperIngestion.objects.filter(state=IngestionState.PDF_ONLY).values_list(
            "paper__arxiv_id", flat=True
        )
    )
