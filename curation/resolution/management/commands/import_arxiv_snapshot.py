"""Load the arXiv metadata snapshot (JSON lines, optionally gzip) into the local catalogue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from curation.audit import Actor
from curation.resolution.management.reporting import finish_import
from curation.resolution.services.catalogue_imports import import_arxiv_snapshot


class Command(BaseCommand):
    # Exit status: a bad line does not fail the import (the others are imported and the
    # checkpoint moves past it); it is printed as "skipped FILE:LINE: reason" on stderr and
    # counted in the summary. Exit 1 only for a file that cannot be read to its end.
    help = (
        "Import an arXiv metadata snapshot; resumable. Each bad line is skipped and printed "
        "as 'skipped FILE:LINE: reason' (exit status 0, the count in the summary); exit 1 "
        "only when the file cannot be read to its end."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--restart", action="store_true", help="Ignore the checkpoint")
        parser.add_argument("--batch-size", type=int, default=settings.CITEREC_IMPORT_BATCH)
        parser.add_argument(
            "--processes", type=int, default=1,
            help="Worker processes parsing lines (default 1: on 2 cores, measured, the workers "
            "cost more CPU than they save the parent; try more cores with PostgreSQL elsewhere)",
        )  # fmt: skip
        parser.add_argument("--no-requeue", action="store_true", help="Do not re-resolve after")
        parser.add_argument("--reason", default="arXiv snapshot import")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        with tqdm(unit=" papers", unit_scale=True, disable=options["verbosity"] < 1,
                  file=self.stderr) as bar:  # fmt: skip
            report = import_arxiv_snapshot(
                path=path,
                actor=Actor.importer("import_arxiv_snapshot"),
                reason=options["reason"],
                batch_size=options["batch_size"],
                progress=bar.update,
                restart=options["restart"],
                processes=options["processes"],
            )
        finish_import(
            report, path, "papers", stdout=self.stdout, stderr=self.stderr,
            requeue=not options["no_requeue"],
        )  # fmt: skip
