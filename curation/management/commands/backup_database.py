"""Take a backup of the database with pg_dump (custom format)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from curation.backup import BackupError, dump_database


class Command(BaseCommand):
    help = "Dump the whole database (curated data and its history) to FILE."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            dump_database(options["file"])
        except BackupError as exc:
            raise CommandError(f"backup failed: {exc}") from exc
        self.stdout.write(f"wrote {options['file']} ({options['file'].stat().st_size} bytes)")
