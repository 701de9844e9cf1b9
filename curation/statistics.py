"""The planner's statistics after a bulk write: ANALYZE the tables it made stale, after commit.

Imports, ingestion and resolution runs connect as the runtime role, which may not ANALYZE (only
a table's owner may); without fresh statistics the planner keeps estimating a table by its size
before the import, and admin searches took 11-16 s after 118k references (issue 43). The owner's
function `citerec_analyze_stale` (curation migration 0012) analyzes a table of its fixed list
only when its changes since the last ANALYZE pass max(CITEREC_ANALYZE_MIN_ROWS,
CITEREC_ANALYZE_FRACTION x its rows), so calling it after every write is cheap: two short
statements (the first makes this session's counts of its writes count).

It runs after the write commits (`transaction.on_commit`): ANALYZE then samples the committed
rows, and the write's transaction neither waits for it nor holds its lock. One call per
transaction, however many services of it asked.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models import Model

from .history import event_model

log = logging.getLogger(__name__)


class _AnalyzeAfterCommit:
    """The tables one transaction wrote, analyzed (when stale) once it commits."""

    def __init__(self, tables: set[str], using: str) -> None:
        self.tables = tables
        self.using = using

    def __call__(self) -> None:
        analyzed = analyze_stale(sorted(self.tables), using=self.using)
        if analyzed:
            log.info("analyzed %s after a bulk write", ", ".join(analyzed))


def written_tables(models: Iterable[type[Model]]) -> set[str]:
    """Return the models' tables with their history: event tables and the contexts."""
    tables = set()
    for model in models:
        tables.add(model._meta.db_table)
        try:
            events = event_model(model._meta.model_name or "", model._meta.app_label)
        except LookupError:  # not tracked: no history written with it
            continue
        tables.update({events._meta.db_table, "pghistory_context"})
    return tables


def analyze_after_commit(*models: type[Model], using: str = DEFAULT_DB_ALIAS) -> None:
    """Refresh the statistics of the tables these models (and their history) live in, if stale,
    once the current transaction commits (at once outside one)."""
    connection = connections[using]
    # One job per transaction: a later write joins the job an earlier one registered. A job
    # registered inside a savepoint that rolls back is dropped by Django with it, and a write
    # after that registers a new one.
    pending = next(
        (job for _, job, *_ in connection.run_on_commit if isinstance(job, _AnalyzeAfterCommit)),
        None,
    )
    if pending is not None:
        pending.tables.update(written_tables(models))
    else:  # outside a transaction, on_commit runs the job at once
        # robust: the write has committed; statistics left stale must not turn it into an error.
        job = _AnalyzeAfterCommit(written_tables(models), using)
        transaction.on_commit(job, using=using, robust=True)


def analyze_stale(tables: list[str], *, using: str = DEFAULT_DB_ALIAS) -> list[str]:
    """ANALYZE those of `tables` whose changes since their last ANALYZE pass the settings' bar
    (through the owner's function: the runtime role may not ANALYZE); return the ones analyzed."""
    connection = connections[using]
    with connection.cursor() as cursor:
        if connection.pg_version >= 150000:  # type: ignore[attr-defined]
            # This session's own counts reach the shared statistics (n_mod_since_analyze) when
            # it next goes idle, not at commit: between these two statements, then.
            cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute(
            "SELECT citerec_analyze_stale(%s::text[], %s, %s)",
            [tables, settings.CITEREC_ANALYZE_MIN_ROWS, settings.CITEREC_ANALYZE_FRACTION],
        )
        return list(cursor.fetchone()[0])
