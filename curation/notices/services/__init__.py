"""All writes to notice data, each in one transaction inside an audit context, by job.

- `refresh` / `refresh_many`: ask the sources about cited works, store their answers,
  recompute notices (a batch in one transaction);
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
    "recompute_notices",
    "refresh",
    "refresh_in_batches",
    "refresh_many",
    "retraction_watch_follow_up",
    "retraction_watch_import",
    "review_decide",
    "store_answers",
]
