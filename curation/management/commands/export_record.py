"""Print a paper's citation record as canonical JSON."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from curation.record.builder import build_record, record_bytes
from curation.record.timestamps import parse_timestamp


class Command(BaseCommand):
    help = "Print the pith.paper-citation-record.v1 of a paper as canonical JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("arxiv_id")
        parser.add_argument("--as-of", help="ISO-8601 time of the record (default: now)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            as_of = parse_timestamp(options["as_of"]) if options["as_of"] else timezone.now()
        except ValueError as exc:
            raise CommandError(f"--as-of: {exc}") from exc
        record = build_record(options["arxiv_id"], as_of)
        if record is None:
            raise CommandError(f"unknown paper arXiv:{options['arxiv_id']}")
        sys.stdout.buffer.write(record_bytes(record))
        sys.stdout.buffer.flush()
