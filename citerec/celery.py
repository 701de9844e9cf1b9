"""Celery application: named queues, Read-the-Docs-style reliability defaults.

A worker checks its database before it takes any job: one that cannot reach it would otherwise
take job after job from the queue and fail each, while healthy workers get nothing.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "citerec.settings")

log = logging.getLogger(__name__)

app = Celery("citerec")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class DatabaseUnreachable(SystemExit):
    """The worker's database did not answer in time: stop before consuming anything."""


def database_wait(*, seconds: float, pause: float = 1.0) -> None:
    """Wait until the default database answers, for at most `seconds`; raise if it never does."""
    from django.db import DatabaseError, connection

    deadline = time.monotonic() + seconds
    while True:
        try:
            connection.ensure_connection()
            return
        except DatabaseError as exc:
            if time.monotonic() >= deadline:
                log.critical("database unreachable, this worker takes no jobs: %s", exc)
                raise DatabaseUnreachable(3) from exc
            log.warning("database unreachable, waiting before taking jobs: %s", exc)
            time.sleep(pause)
            pause = min(pause * 2, 10.0)
        finally:
            connection.close()  # pool processes open their own connections


@worker_init.connect
def _check_database(sender: Any = None, **kwargs: Any) -> None:
    """Refuse to start consuming while the database does not answer (waits a little first)."""
    from django.conf import settings

    database_wait(seconds=settings.CITEREC_WORKER_DATABASE_WAIT)
