"""All writes to curated data. Each service runs in one transaction inside an audit context.

Services are keyword-only and take an Actor and a reason; callers (admin, API, tasks, commands)
stay thin. The history triggers refuse a change that carries no context, so nothing can write
around these functions. One module per area; the names below are the public surface.
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
