"""Timings of resolution jobs and their beat entry; settings add it to CELERY_BEAT_SCHEDULE.

No Django import here: settings import this module before the apps are loaded.
"""

from __future__ import annotations

from typing import Any

# A run nothing has touched for RESOLUTION_STALE_RUN_MINUTES (a setting) is re-queued by the
# beat entry below.
# Chunk jobs retry database errors and busy chunks with exponential backoff (2 s, 4 s, ...,
# capped): about 10 minutes in all before the chunk is recorded as failed on its run.
CHUNK_MAX_RETRIES = 8
CHUNK_RETRY_BACKOFF_MAX = 120

CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "resolution-redispatch-stale-runs": {
        "task": "curation.resolution.tasks.redispatch_stale_runs",
        "schedule": 5 * 60.0,
        "options": {"queue": "resolution", "expires": 4 * 60.0},
    },
}
