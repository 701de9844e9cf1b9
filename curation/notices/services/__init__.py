"""All writes to notice data, each in one transaction inside an audit context, by job.

- `refresh`: ask the sources about a cited work, store their answers, recompute notices;
- `review`: a staff member's decision on a notice event (revision-checked);
- `retraction_watch`: import the Retraction Watch CSV.
"""

from .refresh import (
    ALL_SOURCES,
    RefreshOutcome,
    notice_values,
    recompute_notices,
    refresh,
    store_answers,
)
from .retraction_watch import RetractionWatchOutcome, retraction_watch_import
from .review import MissingNote, StaleReview, review_decide

__all__ = [
    "ALL_SOURCES",
    "MissingNote",
    "RefreshOutcome",
    "RetractionWatchOutcome",
    "StaleReview",
    "notice_values",
    "recompute_notices",
    "refresh",
    "retraction_watch_import",
    "review_decide",
    "store_answers",
]
