"""Writes to papers, observations and their works, one module per area (the other areas'
writes are in curation/{resolution,notices,ingestion}/services/: ARCHITECTURE.md).

Each service runs in one transaction inside an audit context, is keyword-only and takes an
Actor and a reason; callers (admin, API, tasks, commands) stay thin. The history triggers
refuse a change that carries no context, so nothing can write around these functions.
"""

from .record_import import ImportOutcome, RecordConflict, record_import
from .reference_lists import ReferenceListOutcome, reference_list_import

__all__ = [
    "ImportOutcome",
    "RecordConflict",
    "ReferenceListOutcome",
    "record_import",
    "reference_list_import",
]
