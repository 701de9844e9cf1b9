"""The history context every write to curated data carries: who, where from, why, which task."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pghistory

from .states import ChangeSource


@dataclass(frozen=True)
class Actor:
    """Who is changing curated data: a user, or a task or command by name."""

    name: str
    source: ChangeSource
    user_id: int | None = None
    task_id: str | None = None

    @classmethod
    def command(cls, name: str) -> Actor:
        """Return the actor for a management command."""
        return cls(name=f"command:{name}", source=ChangeSource.COMMAND)

    @classmethod
    def importer(cls, name: str) -> Actor:
        """Return the actor for an import command."""
        return cls(name=f"command:{name}", source=ChangeSource.IMPORT)

    @classmethod
    def task(cls, name: str, task_id: str | None) -> Actor:
        """Return the actor for a Celery task run."""
        return cls(name=f"task:{name}", source=ChangeSource.TASK, task_id=task_id)


class MissingReason(ValueError):
    """A change to curated data was attempted without a reason."""


@contextmanager
def audited(actor: Actor, reason: str) -> Iterator[None]:
    """Attach actor and reason to every history event written inside the block."""
    if not reason or not reason.strip():
        raise MissingReason("every change to curated data needs a reason")
    metadata = {
        "actor": actor.name,
        "source": actor.source.value,
        "reason": reason.strip(),
        "user": actor.user_id,
        "task_id": actor.task_id,
    }
    with pghistory.context(**metadata):
        yield
