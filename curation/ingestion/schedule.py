"""Retry tables of ingestion jobs and their beat entries; settings add them to
CELERY_BEAT_SCHEDULE, with the harvest's sets and period from their own settings.

No Django import here: settings import this module before the apps are loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# A paper job waits on the shared arXiv rate limit (one request every 3 s across the
# deployment) and retries arXiv outages with backoff: about an hour in all before it fails.
PAPER_MAX_RETRIES = 6
PAPER_RETRY_BACKOFF_MAX = 600


def beat_schedule(*, sets: Sequence[str], every_hours: int) -> dict[str, dict[str, Any]]:
    """Return the beat entries: a harvest of each of `sets` ('' = all of arXiv) every
    `every_hours` (settings ARXIV_HARVEST_SETS, ARXIV_HARVEST_EVERY_HOURS: arXiv publishes new
    metadata once a day, and each run starts where the last one got to), and the sweep that
    queues again papers nothing touched for INGESTION_STALE_MINUTES."""
    return {
        **{
            f"ingestion-harvest-arxiv-{set_spec or 'all'}": {
                "task": "curation.ingestion.tasks.harvest_arxiv",
                "schedule": every_hours * 3600.0,
                "kwargs": {"set_spec": set_spec},
                "options": {"queue": "ingestion", "expires": every_hours * 1800.0},
            }
            for set_spec in sets
        },
        "ingestion-requeue-stale": {
            "task": "curation.ingestion.tasks.requeue_stale_ingestions",
            "schedule": 15 * 60.0,
            "options": {"queue": "ingestion", "expires": 14 * 60.0},
        },
    }
