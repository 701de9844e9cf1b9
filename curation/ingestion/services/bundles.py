"""arXiv source bundles (tars of per-paper e-prints) ingested with no network, in chunks.

Registering a bundle indexes it once (each e-print's byte offset inside the tar) into chunks of
a few dozen papers; any worker sharing the file system reads its chunk's e-prints by offset.
A chunk is done once, in the transaction that marks it (a re-delivered chunk job is a no-op),
so `ingest_source_bundle` run again queues only the chunks not done: the bundle resumes.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
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
from curation.models import Observation
from curation.references.latex_source import (
    PdfOnlySource,
)
from curation.resolution.catalogue_rows import file_key

from .papers import (
    ARXIV_SOURCE,
    NO_BIBLIOGRAPHY,
    PDF_ONLY_MESSAGE,
    IngestOutcome,
    begin,
    finish,
    ingestion_for,
    observations_resolve_new,
    set_fields,
    source_entries,
    source_entries_import,
)

log = logging.getLogger(__name__)

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


def bundle_chunk_ingest(*, chunk_id: int, actor: Actor, reason: str) -> BundleChunkOutcome:
    """Ingest one chunk of a bundle: each paper's source list, then the new references' verdicts.

    One bad e-print fails that paper (its ingestion says why), never the chunk.
    """
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
        path = Path(chunk.bundle.path)
        papers: list[int] = []
        for arxiv_id, member, offset, size, kind in chunk.items:
            item = BundleItem(arxiv_id=arxiv_id, member=member, offset=offset, size=size, kind=kind)
            try:
                with transaction.atomic():
                    paper_pk, state = _item_ingest(path, item, actor, reason, outcome)
                papers.append(paper_pk)
            except Exception as exc:  # noqa: BLE001 - a batch never dies on one item
                state = IngestionState.FAILED
                error = f"{path.name}: {member}: {type(exc).__name__}: {exc}"
                outcome.errors.append(error)
                log.exception("bundle %s: %s failed", path, member)
                with transaction.atomic():  # what it wrote is gone; that it failed, and why, stays
                    _item_failed(item, error, actor, reason)
            if state == IngestionState.FAILED:
                outcome.failed += 1
            else:
                outcome.done += 1
        ingestions = PaperIngestion.objects.filter(paper_id__in=papers)
        observations_resolve_new(
            Observation.objects.filter(paper_id__in=papers, source=ARXIV_SOURCE), actor, reason
        )
        now = timezone.now()
        ingestions.filter(state=IngestionState.RESOLVING).update(
            state=IngestionState.DONE, finished_at=now, updated_at=now
        )
        chunk.done_at, chunk.outcome = now, outcome.summary()
        chunk.save(update_fields=["done_at", "outcome"])
        SourceBundle.objects.filter(pk=chunk.bundle_id).update(
            done=F("done") + outcome.done, failed=F("failed") + outcome.failed
        )
        if not chunk.bundle.chunks.filter(done_at__isnull=True).exists():
            SourceBundle.objects.filter(pk=chunk.bundle_id).update(finished_at=now)
    return outcome


def _item_failed(item: BundleItem, error: str, actor: Actor, reason: str) -> None:
    """Record that one e-print of the bundle failed, and why (its paper lists it so)."""
    ingestion, _ = ingestion_for(item.arxiv_id, actor, reason)
    set_fields(ingestion, state=IngestionState.FAILED, error=error[:2000], finished_at=timezone.now())


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
    set_fields(ingestion, source_sha256=hashlib.sha256(data).hexdigest())
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
