"""Write the labels of curator decisions made before decisions wrote their own, from history
(curation.resolution.services.labels.verdict_labels_backfill). Run it again to go on after a
stop: each decision is labelled once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from curation.resolution.services.labels import BACKFILL_BATCH, verdict_labels_backfill


class Command(BaseCommand):
    help = "Label past curator decisions on resolver verdicts from history (idempotent)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=BACKFILL_BATCH, help="decisions per transaction")

    def handle(self, *args: Any, **options: Any) -> None:
        written = verdict_labels_backfill(batch=max(1, options["batch"]))
        self.stdout.write(f"{written} label{'' if written == 1 else 's'} written from history")
