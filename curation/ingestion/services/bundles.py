"""arXiv source bundles (tars of per-paper e-prints) ingested with no network, in chunks.

Registering a bundle indexes it once (each e-print's byte offset inside the tar) into chunks of
a few dozen papers; any worker sharing the file system reads its chunk's e-prints by offset.
A chunk is done once, in the transaction that marks it (a re-delivered chunk job is a no-op),
so `ingest_source_bundle` run again queues only the chunks not done: the bundle resumes.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from curation.audit import Actor
from curation.ingestion.bundle import BundleItem, bundle_index, read_item
from curation.ingestion.models import (
    IngestionState,
    PaperIngestion,
    SourceBundle,
    SourceBundleChunk,
)
from curation.limits import MAX_INTERRUPTED
from curation.models import Observation
from curation.queueing import queue_on_commit
from curation.references.latex_source import (
    PdfOnlySource,
)
from curation.resolution.catalogue_rows import file_key
from curation.resolution.services import observations_resolve_new

from .papers import (
    ARXIV_SOURCE,
    NO_BIBLIOGRAPHY,
    PDF_ONLY_MESSAGE,
    IngestOutcome,
    begin,
    finish,
    ingestion_for,
    session_lock,
    set_fields,
    source_entries,
    source_entries_import,
)

log = logging.getLogger(__name__)

BUNDLE_REASON = "arXiv source bundle"
INGEST_BUNDLE_CHUNK = "curation.ingestion.tasks.ingest_bundle_chunk"
BUNDLE_CHUNK_SIZE = 20  # papers per job: a few seconds of work, well inside the visibility timeout
_INGESTED_KINDS = ("gz", "tar", "pdf")


@dataclass
class BundleChunkOutcome:
    """What one chunk job did."""

    chunk_id: int
    skipped: str = ""
    done: int = 0
    failed: int = 0
    references: int = 0
    errors: list[str] = field(default_factory=list)
    stopped: bool = False  # by one of `stop_on`: the chunk is to be taken again at once

    def add(self, other: BundleChunkOutcome) -> None:
        """Count another part of the chunk's work in this outcome."""
        self.done, self.failed = self.done + other.done, self.failed + other.failed
        self.references += other.references
        self.errors += other.errors

    def summary(self) -> dict[str, Any]:
        """Return the outcome as a JSON-able dict."""
        return {k: v for k, v in self.__dict__.items() if v not in ("", [], None)}


def bundle_register(
    *, path: Path, chunk_size: int = BUNDLE_CHUNK_SIZE
) -> tuple[SourceBundle, list[int]]:
    """Index a bundle once (again only if it changed); return it and its unfinished chunk ids."""
    key = file_key(path)
    bundle = SourceBundle.objects.filter(file_key=key).first()
    if bundle is None:
        bundle = _index(path, key, chunk_size)
    pending = list(
        bundle.chunks.filter(done_at__isnull=True).order_by("number").values_list("pk", flat=True)
    )
    return bundle, pending


@transaction.atomic
def _index(path: Path, key: str, chunk_size: int) -> SourceBundle:
    """Write the bundle and its chunks; items the bundle cannot hold as e-prints are skipped."""
    bundle = SourceBundle.objects.create(path=str(path.resolve()), file_key=key)
    batch: list[list[Any]] = []
    chunks: list[SourceBundleChunk] = []
    total = 0
    for item in bundle_index(path):
        if item.kind not in _INGESTED_KINDS:
            log.warning("%s: %s skipped (%s)", path, item.member, item.kind)
            continue
        batch.append([item.arxiv_id, item.member, item.offset, item.size, item.kind])
        total += 1
        if len(batch) == chunk_size:
            chunks.append(SourceBundleChunk(bundle=bundle, number=len(chunks), items=batch))
            batch = []
    if batch:
        chunks.append(SourceBundleChunk(bundle=bundle, number=len(chunks), items=batch))
    SourceBundleChunk.objects.bulk_create(chunks, batch_size=500)
    bundle.total = total
    bundle.save(update_fields=["total"])
    return bundle


# A take of a chunk is counted before its work starts, in its own statement (a chunk another
# worker holds is skipped, not counted); the count goes back to 0 when the chunk is done. A
# chunk whose takes never ended twice (a poison e-print killed its worker: out of memory, past
# the hard time limit; acks_late delivers it again) is read one paper at a time at the next
# take: the good papers are kept, and the one a take was reading when it died is failed.
_TAKE_SQL = """
    UPDATE ingestion_sourcebundlechunk SET interrupted = interrupted + 1
    WHERE id = (SELECT id FROM ingestion_sourcebundlechunk
                WHERE id = %s AND done_at IS NULL FOR UPDATE SKIP LOCKED)
    RETURNING interrupted
"""


def bundle_chunk_ingest(
    *, chunk_id: int, actor: Actor, reason: str, stop_on: tuple[type[BaseException], ...] = ()
) -> BundleChunkOutcome:
    """Ingest one chunk of a bundle: each paper's source list, then the new references' verdicts.

    One bad e-print fails that paper (its ingestion says why), never the chunk; one that kills
    its worker is failed alone too, once the chunk's takes never ended twice. An exception of
    `stop_on` (the job's soft time limit) ends the take, `stopped`: a whole chunk is read one
    paper at a time at the next take, and a take reading one at a time keeps the papers read;
    a stopped chunk is queued again.
    """
    outcome = _chunk_take(chunk_id, actor, reason, stop_on)
    if outcome.stopped:  # go on at once, in a new job with its own time limit
        queue_on_commit(INGEST_BUNDLE_CHUNK, [chunk_id])
    return outcome


def bundle_chunks_queue(*, chunk_ids: Sequence[int]) -> None:
    """Queue a job for each chunk of a bundle (`bundle_register` says which are pending)."""
    for chunk_id in chunk_ids:
        queue_on_commit(INGEST_BUNDLE_CHUNK, [chunk_id])


def _chunk_take(
    chunk_id: int, actor: Actor, reason: str, stop_on: tuple[type[BaseException], ...]
) -> BundleChunkOutcome:
    """Count this take of the chunk, then ingest it whole, or one paper at a time once takes
    whose worker was killed passed MAX_INTERRUPTED."""
    with connection.cursor() as cursor:
        cursor.execute(_TAKE_SQL, [chunk_id])
        taken = cursor.fetchone()
    if taken is not None and taken[0] > MAX_INTERRUPTED:
        return _chunk_ingest_one_by_one(chunk_id, actor, reason, stop_on)
    try:
        return _chunk_ingest_whole(chunk_id, actor, reason, stop_on)
    except stop_on as exc:  # all of it undone: the next take reads one paper at a time
        log.warning("bundle chunk %s stopped (%r): read one paper at a time next", chunk_id, exc)
        SourceBundleChunk.objects.filter(pk=chunk_id).update(interrupted=MAX_INTERRUPTED)
        return BundleChunkOutcome(chunk_id, stopped=True)


def _chunk_ingest_whole(
    chunk_id: int, actor: Actor, reason: str, stop_on: tuple[type[BaseException], ...]
) -> BundleChunkOutcome:
    """Ingest the chunk's papers in one transaction (the chunk row locked while it runs)."""
    outcome = BundleChunkOutcome(chunk_id)
    with transaction.atomic():
        # Lock the chunk row only (`of self`): locking the bundle row too would make every
        # other chunk of the bundle look taken, and a second worker would drop them.
        chunk = (
            SourceBundleChunk.objects.select_for_update(of=("self",), skip_locked=True)
            .select_related("bundle")
            .filter(pk=chunk_id)
            .first()
        )
        if chunk is None:
            outcome.skipped = "no such chunk, or another worker holds it"
            return outcome
        if chunk.done_at is not None:
            outcome.skipped = "done already"
            return outcome
        if chunk.interrupted > MAX_INTERRUPTED:  # this take was not counted: it was held
            outcome.skipped = "another worker reads it one paper at a time"
            return outcome
        path = Path(chunk.bundle.path)
        papers = [_item_read(path, item, actor, reason, outcome, stop_on) for item in _items(chunk)]
        _chunk_done(chunk, outcome, _papers_resolve(papers, actor, reason), counted=False)
    return outcome


def _chunk_ingest_one_by_one(
    chunk_id: int, actor: Actor, reason: str, stop_on: tuple[type[BaseException], ...]
) -> BundleChunkOutcome:
    """Ingest the chunk's papers each in its own transaction, the one being read marked
    (committed) before it starts: a take that finds a paper still marked fails it, as the
    poison that killed the take reading it, and reads the rest. Stopped (`stop_on`), the take
    keeps what it read and the next goes on; a paper that alone outlasts a take is failed."""
    outcome = BundleChunkOutcome(chunk_id)
    with session_lock(f"bundle-chunk:{chunk_id}") as held:
        chunk = SourceBundleChunk.objects.select_related("bundle").filter(pk=chunk_id).first()
        if not held or chunk is None or chunk.done_at is not None:
            outcome.skipped = "another worker holds it, or done already"
            return outcome
        path, items = Path(chunk.bundle.path), _items(chunk)
        start = chunk.next_item
        if chunk.reading is not None:
            poison = items[chunk.reading]
            error = f"{path.name}: {poison.member}: {poison_message()}"
            with transaction.atomic():
                _item_failed(poison, error, actor, reason)
                _count(chunk, BundleChunkOutcome(chunk_id, failed=1), next_item=chunk.reading + 1)
            outcome.failed += 1
            outcome.errors.append(error)
            start = chunk.reading + 1
        for number in range(start, len(items)):
            SourceBundleChunk.objects.filter(pk=chunk_id).update(reading=number)  # committed
            paper = BundleChunkOutcome(chunk_id)
            try:
                with transaction.atomic():
                    read = _item_read(path, items[number], actor, reason, paper, stop_on)
                    _papers_resolve([read], actor, reason)
                    _count(chunk, paper, next_item=number + 1)
            except stop_on:
                _stop(chunk, path, items[number], number, alone=number == start, outcome=outcome,
                      actor=actor, reason=reason)  # fmt: skip
                return outcome
            outcome.add(paper)
        with transaction.atomic():
            _chunk_done(chunk, outcome, timezone.now(), counted=True)
    return outcome


def _stop(
    chunk: SourceBundleChunk, path: Path, item: BundleItem, number: int, *, alone: bool,
    outcome: BundleChunkOutcome, actor: Actor, reason: str,
) -> None:  # fmt: skip
    """End a take at its time limit: the next goes on at the paper it was reading, or after it
    when that paper alone took the whole take (failed, or it would stop every take)."""
    outcome.stopped = True
    if not alone:
        SourceBundleChunk.objects.filter(pk=chunk.pk).update(reading=None, next_item=number)
        return
    error = (
        f"{path.name}: {item.member}: reading it alone ran past the time limit of "
        f"{settings.CELERY_TASK_SOFT_TIME_LIMIT} s (CELERY_TASK_SOFT_TIME_LIMIT)"
    )
    with transaction.atomic():
        _item_failed(item, error, actor, reason)
        _count(chunk, BundleChunkOutcome(chunk.pk, failed=1), next_item=number + 1)
    outcome.failed += 1
    outcome.errors.append(error)


def poison_message() -> str:
    """Say why a paper of a bundle is failed without being read again."""
    return (
        "its reading never ended: the worker was killed while reading it (out of memory, or "
        f"past the hard time limit of {settings.CELERY_TASK_TIME_LIMIT} s, "
        "CELERY_TASK_TIME_LIMIT); ask for the paper again to retry"
    )


def _items(chunk: SourceBundleChunk) -> list[BundleItem]:
    return [
        BundleItem(arxiv_id=arxiv_id, member=member, offset=offset, size=size, kind=kind)
        for arxiv_id, member, offset, size, kind in chunk.items
    ]


def _item_read(
    path: Path, item: BundleItem, actor: Actor, reason: str, outcome: BundleChunkOutcome,
    stop_on: tuple[type[BaseException], ...],
) -> int | None:  # fmt: skip
    """Read one e-print in its own savepoint, counted in `outcome`; return its paper's pk
    (None if it broke the code: what it wrote is gone, that it failed and why stays). An
    exception of `stop_on` is the take's, not the paper's: it is raised on."""
    paper_pk: int | None = None
    try:
        with transaction.atomic():
            paper_pk, state = _item_ingest(path, item, actor, reason, outcome)
    except stop_on:
        raise
    except Exception as exc:  # noqa: BLE001 - a batch never dies on one item
        state = IngestionState.FAILED
        error = f"{path.name}: {item.member}: {type(exc).__name__}: {exc}"
        outcome.errors.append(error)
        log.exception("bundle %s: %s failed", path, item.member)
        with transaction.atomic():
            _item_failed(item, error, actor, reason)
    if state == IngestionState.FAILED:
        outcome.failed += 1
    else:
        outcome.done += 1
    return paper_pk


def _papers_resolve(papers: list[int | None], actor: Actor, reason: str) -> datetime:
    """Resolve the new references of the papers read; they are done. Return when."""
    read = [pk for pk in papers if pk is not None]
    observations_resolve_new(
        observations=Observation.objects.filter(paper_id__in=read, source=ARXIV_SOURCE),
        actor=actor,
        reason=reason,
    )
    now = timezone.now()
    PaperIngestion.objects.filter(paper_id__in=read, state=IngestionState.RESOLVING).update(
        state=IngestionState.DONE, finished_at=now, updated_at=now
    )
    return now


def _count(chunk: SourceBundleChunk, outcome: BundleChunkOutcome, **progress: Any) -> None:
    """Add the papers done and failed to the bundle's counts; record the chunk's progress."""
    SourceBundleChunk.objects.filter(pk=chunk.pk).update(reading=None, **progress)
    SourceBundle.objects.filter(pk=chunk.bundle_id).update(
        done=F("done") + outcome.done, failed=F("failed") + outcome.failed
    )


def _chunk_done(
    chunk: SourceBundleChunk, outcome: BundleChunkOutcome, now: datetime, *, counted: bool
) -> None:
    """Mark the chunk done (its papers counted on the bundle, unless `counted` already)."""
    if not counted:
        _count(chunk, outcome)
    SourceBundleChunk.objects.filter(pk=chunk.pk).update(
        done_at=now, outcome=outcome.summary(), interrupted=0, reading=None
    )
    if not chunk.bundle.chunks.filter(done_at__isnull=True).exists():
        SourceBundle.objects.filter(pk=chunk.bundle_id).update(finished_at=now)


def _item_failed(item: BundleItem, error: str, actor: Actor, reason: str) -> None:
    """Record that one e-print of the bundle failed, and why (its paper lists it so)."""
    ingestion, _ = ingestion_for(item.arxiv_id, actor, reason)
    set_fields(
        ingestion, state=IngestionState.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def _item_ingest(
    path: Path, item: BundleItem, actor: Actor, reason: str, chunk: BundleChunkOutcome
) -> tuple[int, str]:
    """Read one e-print of the bundle into its paper's observations; return the paper's pk and
    the state it ends in (resolving: its verdicts come with the chunk's)."""
    ingestion, _ = ingestion_for(item.arxiv_id, actor, reason)
    paper = ingestion.paper
    outcome = IngestOutcome(arxiv_id=item.arxiv_id, state=ingestion.state)
    begin(ingestion, error="")
    data = read_item(path, item)
    name = f"arXiv:{item.arxiv_id} ({path.name}: {item.member})"
    # A bundle's e-print is the latest version when the bundle was made: the version the
    # catalogue knows, so that Add papers later finds it read already.
    set_fields(
        ingestion, source_sha256=hashlib.sha256(data).hexdigest(), version=paper.latest_version
    )
    try:
        entries = source_entries(ingestion, outcome, data, name)
    except PdfOnlySource:  # no GROBID in a bundle's job: the paper waits for it as "PDF only"
        finish(ingestion, outcome, IngestionState.PDF_ONLY, PDF_ONLY_MESSAGE)
        return paper.pk, IngestionState.PDF_ONLY
    if entries is None:
        chunk.errors.append(outcome.error)
        return paper.pk, IngestionState.FAILED
    if not entries:
        set_fields(ingestion, error=NO_BIBLIOGRAPHY)
    source_entries_import(ingestion, outcome, entries, actor, reason)
    chunk.references += len(entries)
    return paper.pk, IngestionState.RESOLVING
