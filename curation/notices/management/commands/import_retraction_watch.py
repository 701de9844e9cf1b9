"""Import the Retraction Watch CSV (as Crossref publishes it), then refresh the cited works."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from curation.audit import Actor
from curation.limits import Limits, current_limits
from curation.notices.parsers.retraction_watch import (
    CsvLimits,
    RetractionWatchFileError,
    read_retraction_watch,
)
from curation.notices.services import retraction_watch_follow_up, retraction_watch_import

ERRORS_SHOWN = 50


class Command(BaseCommand):
    help = (
        "Import a Retraction Watch CSV: idempotent by Record ID; bad rows are reported by line "
        "and the rest imports. Cited works whose rows changed get their notices recomputed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument("--reason", default="import of the Retraction Watch database")
        parser.add_argument(
            "--no-refresh",
            action="store_true",
            help="only store the rows; the scheduled refresh brings them to the records",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["path"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        actor = Actor.importer("import_retraction_watch")
        started = time.perf_counter()
        limits = current_limits()
        csv_limits = CsvLimits(
            file_bytes=limits.csv_file_bytes,
            field_chars=limits.csv_field_chars,
            file_setting=Limits.setting("csv_file_bytes"),
            field_setting=Limits.setting("csv_field_chars"),
        )
        items = tqdm(
            read_retraction_watch(path, csv_limits),
            desc="rows",
            unit=" rows",
            disable=not sys.stderr.isatty(),
        )
        try:
            outcome = retraction_watch_import(
                items=items, file_name=str(path), actor=actor, reason=options["reason"]
            )
        except RetractionWatchFileError as exc:
            raise CommandError(str(exc)) from None
        run, seconds = outcome.run, time.perf_counter() - started
        for error in outcome.errors[:ERRORS_SHOWN]:
            self.stderr.write(self.style.WARNING(f"{path}: {error}"))
        if len(outcome.errors) > ERRORS_SHOWN:
            self.stderr.write(f"{path}: ... and {len(outcome.errors) - ERRORS_SHOWN} more errors")
        self.stdout.write(
            f"{path}: {run.rows_read} rows read in {seconds:.1f} s: created {run.created}, "
            f"updated {run.updated}, unchanged {run.unchanged}, rejected {run.error_count}"
        )
        if options["no_refresh"]:
            return
        done = retraction_watch_follow_up(
            changed_dois=outcome.changed_dois,
            actor=actor,
            reason=f"Retraction Watch rows changed ({options['reason']})",
        )
        works = len(done.outcomes) + len(done.failed)
        self.stdout.write(f"notices recomputed for {works} cited work(s)")
