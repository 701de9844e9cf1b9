"""Resolution writes, by job.

- `verdicts`: write the resolver's verdicts into observations (SPEC §2's table), with history,
  pinned-link disagreements and the notices that follow new links;
- `runs`: a selection of observations as a run of chunks on the resolution queue, each chunk
  leased, resolved once and counted, resumable; or resolved here and now, a chunk per
  transaction (`observations_resolve_new`, for a paper's or a bundle's new references);
- `dispatch`: queue stale runs' chunks again, and the re-resolution a grown catalogue calls for.
"""

from .dispatch import REQUEUE_REASON, stale_runs_redispatch, unresolved_requeue
from .runs import (
    CHUNK_SIZE,
    MAX_RUN_ERRORS,
    RUN_CREATE_BATCH,
    ChunkBusy,
    ChunkOutcome,
    chunk_failed,
    chunk_resolve,
    chunk_take_ended,
    observations_resolve_new,
    run_create,
    run_dispatch,
    run_unfinished_chunks,
)
from .verdicts import (
    DATABASE_UNAVAILABLE,
    BatchOutcome,
    locked_observations,
    observations_resolve,
)

__all__ = [
    "CHUNK_SIZE",
    "DATABASE_UNAVAILABLE",
    "MAX_RUN_ERRORS",
    "REQUEUE_REASON",
    "RUN_CREATE_BATCH",
    "BatchOutcome",
    "ChunkBusy",
    "ChunkOutcome",
    "chunk_failed",
    "chunk_take_ended",
    "chunk_resolve",
    "locked_observations",
    "observations_resolve",
    "observations_resolve_new",
    "run_create",
    "run_dispatch",
    "stale_runs_redispatch",
    "unresolved_requeue",
    "run_unfinished_chunks",
]
