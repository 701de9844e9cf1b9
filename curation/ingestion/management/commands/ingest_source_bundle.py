"""Ingest a local arXiv source bundle (a tar of e-prints): no network, parallel, resumable."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from curation.audit import Actor
from curation.ingestion import selectors
from curation.ingestion import services as ingestion
from curation.ingestion.bundle import BundleError

STALLED_SECONDS = 600  # a chunk takes seconds: ten minutes without one finishing is a stall


class Command(BaseCommand):
    help = (
        "Index a source bundle once and queue its chunks on the ingestion queue (in process "
        "with --sync or when no broker is set). Run again to resume: only unfinished chunks go."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("bundle", type=Path)
        parser.add_argument("--sync", action="store_true", help="ingest in this process")
        parser.add_argument("--wait", action="store_true", help="wait for the workers to finish")
        parser.add_argument("--chunk-size", type=int, default=ingestion.bundles.BUNDLE_CHUNK_SIZE)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["bundle"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            bundle, pending = ingestion.bundle_register(path=path, chunk_size=options["chunk_size"])
        except BundleError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"{path}: {bundle.total:,} e-prints in {bundle.chunks.count():,} chunks; "
            f"{len(pending):,} chunks to do"
        )
        if options["sync"]:
            actor = Actor.importer("ingest_source_bundle")
            for chunk_id in tqdm(pending, unit=" chunks", disable=None):
                ingestion.bundle_chunk_ingest(chunk_id=chunk_id, actor=actor, reason=ingestion.BUNDLE_REASON)
        else:
            ingestion.bundle_chunks_queue(chunk_ids=pending)
            if options["wait"]:
                self._wait(bundle.pk)
        bundle.refresh_from_db()
        self.stdout.write(
            f"{path}: done {bundle.done:,}, failed {bundle.failed:,} of {bundle.total:,}"
            + (" (finished)" if bundle.finished_at else "")
        )

    def _wait(self, bundle_id: int) -> None:
        """Show the workers' progress until the bundle is finished or nothing moves any more."""
        last_move = time.monotonic()
        with tqdm(total=selectors.bundle_by_pk(bundle_id).total, unit=" papers", disable=None) as bar:
            while True:
                bundle = selectors.bundle_by_pk(bundle_id)
                if bundle.done + bundle.failed != bar.n:
                    bar.update(bundle.done + bundle.failed - bar.n)
                    last_move = time.monotonic()
                if bundle.finished_at:
                    return
                if time.monotonic() - last_move > STALLED_SECONDS:
                    self.stderr.write(
                        f"nothing finished for {STALLED_SECONDS // 60} minutes (no worker on the "
                        "ingestion queue?); run the command again to queue what is left"
                    )
                    return
                time.sleep(1)
