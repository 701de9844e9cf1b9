"""Ingestion writes: catalogue metadata from arXiv, papers' source bibliographies, bundles.

Every face (commands, admin, API, tasks) calls these; they write papers and observations only
through the curated services (reference_list_import, observations_resolve), with an Actor, and
queue the jobs that follow by name (`curation.queueing`).
"""

from .bundles import (
    BUNDLE_REASON,
    BundleChunkOutcome,
    bundle_chunk_ingest,
    bundle_chunks_queue,
    bundle_register,
)
from .harvest import HARVEST_REASON, HarvestOutcome, harvest_run
from .metadata import metadata_delete, metadata_store
from .papers import (
    ADD_REASON,
    ARXIV_SOURCE,
    MAX_IDS,
    IngestOutcome,
    PaperBusy,
    RefusedId,
    RequestOutcome,
    ingestion_failed,
    ingestion_request,
    ingestion_retry_later,
    paper_ingest,
    papers_add,
    pdf_only_waiting,
    stale_ingestions_requeue,
)

__all__ = [
    "ADD_REASON",
    "ARXIV_SOURCE",
    "BUNDLE_REASON",
    "HARVEST_REASON",
    "MAX_IDS",
    "BundleChunkOutcome",
    "HarvestOutcome",
    "IngestOutcome",
    "PaperBusy",
    "RefusedId",
    "RequestOutcome",
    "bundle_chunk_ingest",
    "bundle_chunks_queue",
    "bundle_register",
    "harvest_run",
    "ingestion_failed",
    "ingestion_request",
    "ingestion_retry_later",
    "metadata_delete",
    "metadata_store",
    "paper_ingest",
    "papers_add",
    "pdf_only_waiting",
    "stale_ingestions_requeue",
]
