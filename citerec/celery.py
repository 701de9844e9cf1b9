"""Celery application: named queues, Read-the-Docs-style reliability defaults.

A worker checks its database before it takes any job: one that cannot reach it would otherwise
take job after job from the queue and fail each, while healthy workers get nothing. Every job
retries database outages (`CiterecTask`): its work is idempotent, so a job that met a dropped
connection or a restarting server runs again later instead of being acknowledged as failed.
"""

from __future__ import annotations

import gc
import logging
import os
import time
from typing import Any

from celery import Celery, Task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from celery.signals import task_postrun, task_prerun, worker_init, worker_process_init
from django.db import InterfaceError, OperationalError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "citerec.settings")

log = logging.getLogger(__name__)

# What a lost or restarting database raises (connection refused, terminated, server shutting
# down, deadlock): the job's work is idempotent, so it runs again later.
DATABASE_UNAVAILABLE: tuple[type[Exception], ...] = (OperationalError, InterfaceError)


def failure_reason(exc: BaseException) -> str:
    """Say, for people, why a job failed (a time limit by its setting)."""
    from django.conf import settings

    if isinstance(exc, SoftTimeLimitExceeded):
        limit = settings.CELERY_TASK_SOFT_TIME_LIMIT
        return f"the job ran past its time limit of {limit} s (CELERY_TASK_SOFT_TIME_LIMIT)"
    if isinstance(exc, TimeLimitExceeded):  # raised in the main process, with the job's limit
        limit = exc.args[0] if exc.args else settings.CELERY_TASK_TIME_LIMIT
        return f"the job was killed past its hard time limit of {limit} s (CELERY_TASK_TIME_LIMIT)"
    return f"{type(exc).__name__}: {exc}"


class CiterecTask(Task):  # type: ignore[misc]
    """Every citerec job (the default task class): retried with backoff while the database is
    away, for about ten minutes (within the broker's visibility timeout), then failed and
    logged. Jobs with their own class (resolution chunks, paper ingestion) say more."""

    autoretry_for = DATABASE_UNAVAILABLE
    max_retries = 8
    retry_backoff = 2
    retry_backoff_max = 120
    retry_jitter = True


app = Celery("citerec", task_cls=CiterecTask)
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

    _name_database_sessions(getattr(sender, "hostname", None))
    database_wait(seconds=settings.CITEREC_WORKER_DATABASE_WAIT)


def _name_database_sessions(node: str | None) -> None:
    """Name this worker's PostgreSQL sessions after it (`application_name`, e.g. "citerec
    notices@host"): pg_stat_activity then says which pool holds a lock or spends the server's
    CPU. Set before the pool forks, so its processes connect under the same name."""
    if not node:
        return
    from django.db import connections

    for alias in connections:
        options = connections.settings[alias].setdefault("OPTIONS", {})
        options.setdefault("application_name", f"citerec {node}"[:63])  # NAMEDATALEN - 1


# Collections of the youngest generation every 50,000 allocations instead of 700: a resolver chunk
# makes hundreds of thousands of short-lived objects (parses, candidates, model rows), and each
# collection of the older generations walked every long-lived one too (lexicons, journal
# abbreviations, Django's registry). Measured in process on a 3M catalogue: about 10 % of a
# chunk's worker CPU (bench/README-resolution.md).
GC_THRESHOLDS = (50_000, 50, 100)
# A reference that loads what the parser and resolver keep for the process's life.
_WARM_REFERENCE = "Smith, J. A title of a paper. Phys. Rev. D 98, 030001 (2018). arXiv:1801.00001"


@worker_process_init.connect
def _collect_less(sender: Any = None, **kwargs: Any) -> None:
    """In each pool process: load the parser's and the venues' tables, then keep them (and
    everything loaded so far) out of the garbage collector's walks, and collect young objects
    less often."""
    from curation.references import parse_reference
    from curation.resolution.venues import load_tables

    parse_reference(_WARM_REFERENCE)
    load_tables()
    gc.collect()
    gc.freeze()  # long-lived from here on: never walked again
    gc.set_threshold(*GC_THRESHOLDS)


@task_prerun.connect
@task_postrun.connect
def _close_old_connections(sender: Any = None, **kwargs: Any) -> None:
    """Between jobs, drop a database connection that is broken or older than CONN_MAX_AGE.

    With CELERY_DB_REUSE_MAX set Celery no longer closes it after every job; this is what
    Django does around a request, so a job after one that lost its connection (server restarted,
    backend terminated) starts on a new one. Never in eager mode: there the job runs inside the
    caller's transaction.
    """
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()
