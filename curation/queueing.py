"""The one road to the queue: a service queues the job that follows its write, by task name.

A service never imports a tasks module (tasks are a face above it, and import the services):
it names the task, and `queue_on_commit` sends it once the service's transaction commits, so
a write that rolls back queues nothing, and a job never reads rows its writer has not committed
yet. Outside a transaction (a command, a worker's job) the job is sent at once. Sending goes
through the task itself, so its route (settings.CELERY_TASK_ROUTES, by module), its options and
eager mode (no broker: the job runs in process, after the commit) are exactly a `.delay()`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from celery import Task
from celery import current_app as app
from django.db import transaction

# `app` is the project's (citerec/celery.py) through Celery's proxy: importing citerec.celery
# here would bring the worker's start-up imports (the parser, the venues) onto this floor.


class UnknownTask(LookupError):
    """A task name no tasks module registers (a typo, or a task renamed without its callers)."""


def queue_on_commit(
    task: str,
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    robust: bool = False,
) -> None:
    """Queue the task named `task` with `args` and `kwargs` once the current transaction commits.

    The name is checked now, so an unknown one fails inside the caller's transaction (which
    then rolls back) rather than after it. With `robust`, a job that cannot be sent (the broker
    is away) is logged and the caller goes on: for follow-up work a periodic sweep catches up on.
    """
    job = registered_task(task)
    send = partial(job.apply_async, args=tuple(args), kwargs=dict(kwargs or {}))
    transaction.on_commit(send, robust=robust)


def registered_task(name: str) -> Task:
    """Return the task registered under `name`; raise UnknownTask if there is none."""
    if name not in app.tasks:
        # A web process or a command imports no tasks module (faces call services only): load
        # them as a worker does at start. Idempotent; only the first queueing pays for it.
        app.loader.import_default_modules()
    try:
        return app.tasks[name]
    except KeyError:
        raise UnknownTask(f"no task is registered as {name!r}") from None


def jobs_waiting(queue: str) -> int:
    """Return how many jobs wait on the broker's `queue` (0 when tasks run eagerly)."""
    if app.conf.task_always_eager:
        return 0
    with app.connection_for_read() as conn:
        # Declared as the publisher declares it (idempotent); a passive declare would not do:
        # kombu's Redis transport checks existence without REDIS_KEY_PREFIX and says "no queue".
        declared = app.amqp.queues[queue].bind(conn.default_channel).queue_declare()
        return int(declared.message_count)
