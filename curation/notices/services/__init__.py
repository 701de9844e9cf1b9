"""All writes to notice data, each in one transaction inside an audit context, by job.

- `refresh` / `refresh_many`: ask the sources about cited works, store their answers,
  recompute notices (a batch in one transaction);
- `refresh_jobs`: queue refreshes (works newly linked, works due a re-check);
- `review`: a staff member's decision on a notice event (revision-checked);
- `retraction_watch`: import the Retraction Watch CSV.
"""

from .refresh import (
    ALL_SOURCES,
    BatchRefresh,
    RefreshOutcome,
    recompute_notices,
    refresh,
    refresh_in_batches,
    refresh_many,
    store_answers,
)
from .refresh_jobs import due_refreshes_queue, refreshes_queue
from .retraction_watch import (
    RetractionWatchOutcome,
    retraction_watch_follow_up,
    retraction_watch_import,
)
from .review import MissingNote, StaleReview, review_decide

__all__ = [
    "ALL_SOURCES",
    "BatchRefresh",
    "MissingNote",
    "RefreshOutcome",
    "RetractionWatchOutcome",
    "StaleReview",
    "due_refreshes_queue",
    "recompute_notices",
    "refresh",
    "refresh_in_batches",
    "refresh_many",
    "refreshes_queue",
    "retraction_watch_follow_up",
    "retraction_watch_import",
    "review_decide",
    "store_answers",
]
