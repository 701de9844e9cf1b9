"""Put every reference read from a reference list in its group (references imported before
groups existed, or made by a split): batch by batch, resumable, with progress."""

from __future__ import annotations

import uuid
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from curation.services.reference_groups import BACKFILL_BATCH, groups_backfill


class Command(BaseCommand):
    help = "Group the references that have no group yet (the group queue lists them after)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=BACKFILL_BATCH)
        parser.add_argument("--after", type=uuid.UUID, help="go on after this observation id")

    def handle(self, *args: Any, **options: Any) -> None:
        after, total = options["after"], 0
        while True:
            outcome = groups_backfill(after=after, batch=options["batch"])
            if not outcome.grouped:
                break
            after, total = outcome.last, total + outcome.grouped
            self.stdout.write(f"grouped {total:,} references (resume with --after {after})")
        self.stdout.write(f"done: {total:,} references grouped")
