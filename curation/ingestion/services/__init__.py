"""Ingestion writes: catalogue metadata from arXiv, papers' source bibliographies, bundles.

Every face (commands, admin, API, tasks) calls these; they write papers and observations only
through the curated services (reference_list_import, observations_resolve), with an Actor.
"""

from .bundles import BundleChunkOutcome, bundle_chunk_ingest, bundle_register
from .harvest import HarvestOutcome, harvest_run
from .metadata import metadata_delete, metadata_store
from .papers import (
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
    pdf_only_waiting,
)

__all__ = [
    "ARXIV_SOURCE",
    "MAX_IDS",
    "BundleChunkOutcome",
    "HarvestOutcome",
    "IngestOutcome",
    "PaperBusy",
    "RefusedId",
    "RequestOutcome",
    "bundle_chunk_ingest",
    "bundle_register",
    "harvest_run",
    "ingestion_failed",
    "ingestion_request",
    "ingestion_retry_later",
    "metadata_delete",
    "metadata_store",
    "paper_ingest",
    "pdf_only_waiting",
]
