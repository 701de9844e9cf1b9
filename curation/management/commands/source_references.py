"""Print the reference list of an arXiv e-print (its LaTeX source), one JSON line a reference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from curation.ingestion.sources import archive_limits
from curation.references.latex_source import SourceArchiveError, bibliography_from_eprint


class Command(BaseCommand):
    help = (
        "Read the bibliography out of an arXiv e-print (tar.gz, gzip'd .tex, tar or .tex) and "
        'print one JSON line per reference: {"index", "key", "raw", "doi", "arxiv_id"}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive", type=Path, help="the e-print file, as arXiv serves it")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["archive"]
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"{path}: cannot read ({exc.strerror})") from None
        try:
            # The limits add_papers reads under (CITEREC_MAX_SOURCE_*, CITEREC_MAX_REFERENCE_CHARS).
            bibliography = bibliography_from_eprint(data, name=str(path), limits=archive_limits())
        except SourceArchiveError as exc:
            raise CommandError(str(exc)) from None
        for entry in bibliography.entries:
            line = {
                "index": entry.index,
                "key": entry.key,
                "raw": entry.raw,
                "doi": entry.doi,
                "arxiv_id": entry.arxiv_id,
            }
            self.stdout.write(json.dumps(line, ensure_ascii=False))
        for warning in bibliography.warnings:
            self.stderr.write(f"warning: {warning}")
