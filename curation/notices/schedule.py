"""The Celery beat entries for notices; settings add them to CELERY_BEAT_SCHEDULE.

No Django import here: settings import this module before the apps are loaded.
"""

from __future__ import annotations

from typing import Any

# Every 15 minutes, a batch of 200 cited works not asked about for a week (never-asked first)
# is queued on `notices` in batches (refresh_works); the Crossref throttle paces the calls.
# 200 works x 96 runs a day re-checks about 19,000 works a day.
CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "notices-refresh-due-works": {
        "task": "curation.notices.tasks.refresh_due_works",
        "schedule": 15 * 60.0,
        "kwargs": {"batch": 200, "max_age_hours": 24 * 7},
        "options": {"queue": "notices", "expires": 14 * 60.0},
    },
}
