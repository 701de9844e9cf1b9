"""Write every citation record as gzip JSON lines, in shards, resumable after an interruption."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from tqdm import tqdm

from curation.record.builder import build_record, record_bytes
from curation.record.selectors import papers_with_records
from curation.record.timestamps import format_seconds, parse_timestamp, truncate_to_minute

MANIFEST = "manifest.json"


def _papers_after(last: str | None) -> Any:
    """Return the arXiv ids of papers with outbound observations after last, in order."""
    return papers_with_records(after=last).values_list("arxiv_id", flat=True)


def _write_atomically(path: Path, data: bytes) -> None:
    part = path.with_name(path.name + ".part")
    part.write_bytes(data)
    os.replace(part, path)


class Command(BaseCommand):
    help = (
        "Write all citation records (pith.paper-citation-record.v1, canonical JSON) as gzip "
        "JSON lines in DIR, one shard at a time; rerun to resume where it stopped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path)
        parser.add_argument("--shard-size", type=int, default=10_000, help="records per file")
        parser.add_argument("--restart", action="store_true", help="ignore an earlier run")
        parser.add_argument("--no-progress", action="store_true")

    def _manifest(self, directory: Path, restart: bool) -> dict[str, Any]:
        path = directory / MANIFEST
        if restart or not path.exists():
            as_of = format_seconds(truncate_to_minute(timezone.now()))
            return {"schema": "pith.paper-citation-record.v1", "as_of": as_of, "shards": []}
        try:
            manifest: dict[str, Any] = json.loads(path.read_text())
            parse_timestamp(manifest["as_of"])
        except (ValueError, KeyError) as exc:
            raise CommandError(
                f"{path}: not a dump_records manifest ({exc}); use --restart"
            ) from exc
        return manifest

    def handle(self, *args: Any, **options: Any) -> None:
        directory: Path = options["directory"]
        size: int = options["shard_size"]
        if size < 1:
            raise CommandError("--shard-size must be at least 1")
        directory.mkdir(parents=True, exist_ok=True)
        manifest = self._manifest(directory, options["restart"])
        # One as_of for the whole dump, kept across resumes, so the shards agree.
        as_of = parse_timestamp(manifest["as_of"])
        shards: list[dict[str, Any]] = manifest["shards"]
        last = shards[-1]["last"] if shards else None
        ids = _papers_after(last)
        bar = tqdm(total=ids.count(), unit="record", disable=options["no_progress"])
        batch: list[str] = []
        for arxiv_id in ids.iterator(chunk_size=2_000):
            batch.append(arxiv_id)
            if len(batch) == size:
                self._write_shard(directory, manifest, batch, as_of)
                bar.update(len(batch))
                batch = []
        if batch:
            self._write_shard(directory, manifest, batch, as_of)
            bar.update(len(batch))
        bar.close()
        total = sum(shard["count"] for shard in shards)
        self.stdout.write(f"{total} records in {len(shards)} shards under {directory}")

    def _write_shard(
        self, directory: Path, manifest: dict[str, Any], ids: list[str], as_of: Any
    ) -> None:
        """Write one shard, then record it in the manifest: a crash leaves no half shard."""
        lines = []
        for arxiv_id in ids:
            record = build_record(arxiv_id, as_of)
            if record is not None:  # deleted since the listing
                lines.append(record_bytes(record))
        name = f"records-{len(manifest['shards']):05d}.jsonl.gz"
        # mtime=0: the same records give the same file bytes, so mirrors can compare digests.
        data = gzip.compress(b"".join(line + b"\n" for line in lines), mtime=0)
        _write_atomically(directory / name, data)
        manifest["shards"].append(
            {"file": name, "first": ids[0], "last": ids[-1], "count": len(lines)}
        )
        _write_atomically(directory / MANIFEST, json.dumps(manifest, indent=2).encode())
