"""Load Crossref works (JSON lines, {"items": [...]} files, a folder or tar of them) into the catalogue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from curation.resolution.catalogue_rows import BadLine
from curation.resolution.management.reporting import finish_import
from curation.resolution.services.catalogue_imports import import_crossref_works


class Command(BaseCommand):
    # Exit status as import_arxiv_snapshot's: bad works are skipped and listed, exit 0; exit 1
    # for a file that cannot be read, or an {"items"} document of the wrong shape as a whole.
    help = (
        "Import Crossref work objects into the local DOI catalogue: a file (JSON lines or "
        "{\"items\": [...]}, optionally gzip'd), or a folder or tar of such files (Crossref's "
        "public data file); resumable. Each bad line or item is skipped and printed as "
        "'skipped FILE:LINE: reason' (exit status 0, the count in the summary); exit 1 when a "
        "file cannot be read or is not a Crossref works document (in a folder or tar, after "
        "the other files are imported)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="A file, a folder of files, or a tar")
        parser.add_argument("--keep-raw", action="store_true", help="Store each work's JSON")
        parser.add_argument("--restart", action="store_true", help="Ignore the checkpoints")
        parser.add_argument("--batch-size", type=int, default=settings.CITEREC_IMPORT_BATCH)
        parser.add_argument(
            "--processes", type=int, default=settings.CITEREC_IMPORT_PROCESSES,
            help="Worker processes parsing files (default CITEREC_IMPORT_PROCESSES)",
        )  # fmt: skip
        parser.add_argument("--no-requeue", action="store_true", help="Do not re-resolve after")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.exists():
            raise CommandError(f"{path}: no such file or folder")
        try:
            with tqdm(unit=" works", unit_scale=True, disable=options["verbosity"] < 1,
                      file=self.stderr) as bar:  # fmt: skip
                report = import_crossref_works(
                    path=path, keep_raw=options["keep_raw"], progress=bar.update,
                    batch_size=options["batch_size"], processes=options["processes"],
                    restart=options["restart"],
                )  # fmt: skip
        except BadLine as exc:
            raise CommandError(str(exc)) from exc
        finish_import(
            report, path, "works", stdout=self.stdout, stderr=self.stderr,
            requeue=not options["no_requeue"],
        )  # fmt: skip
