"""Timings of ingestion jobs and their beat entries; settings add them to CELERY_BEAT_SCHEDULE.

No Django import here: settings import this module before the apps are loaded.
"""

from __future__ import annotations

from typing import Any

from citerec.env import env_int, env_str

# arXiv publishes new metadata once a day: the harvest runs once a day (every
# ARXIV_HARVEST_EVERY_HOURS), for the sets in ARXIV_HARVEST_SETS ('' = all of arXiv). Each run
# starts where the last one got to, so when it runs in the day does not matter.
HARVEST_EVERY_HOURS = env_int("ARXIV_HARVEST_EVERY_HOURS", 24)
HARVEST_SETS = [s.strip() for s in env_str("ARXIV_HARVEST_SETS", "").split(",")]

# A paper job waits on the shared arXiv rate limit (one request every 3 s across the
# deployment) and retries arXiv outages with backoff: about an hour in all before it fails.
PAPER_MAX_RETRIES = 6
PAPER_RETRY_BACKOFF_MAX = 600
# A paper queued or being fetched that nothing has touched for this long is queued again
# (its message was lost, or the harvest that asked for it stopped before queueing it).
STALE_INGESTION_MINUTES = env_int("INGESTION_STALE_MINUTES", 60)

CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    **{
        f"ingestion-harvest-arxiv-{set_spec or 'all'}": {
            "task": "curation.ingestion.tasks.harvest_arxiv",
            "schedule": HARVEST_EVERY_HOURS * 3600.0,
            "kwargs": {"set_spec": set_spec},
            "options": {"queue": "ingestion", "expires": HARVEST_EVERY_HOURS * 1800.0},
        }
        for set_spec in HARVEST_SETS
    },
    "ingestion-requeue-stale": {
        "task": "curation.ingestion.tasks.requeue_stale_ingestions",
        "schedule": 15 * 60.0,
        "options": {"queue": "ingestion", "expires": 14 * 60.0},
    },
}
