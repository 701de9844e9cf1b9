"""Restore a backup taken with backup_database into an empty database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from curation.backup import BackupError, restore_database


class Command(BaseCommand):
    help = "Restore FILE into DATABASE (which must exist and be empty) on the configured server."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("database")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            restore_database(options["file"], options["database"])
        except BackupError as exc:
            raise CommandError(f"restore failed: {exc}") from exc
        self.stdout.write(f"restored {options['file']} into {options['database']}")
