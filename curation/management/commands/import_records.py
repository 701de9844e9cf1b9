"""Import citation records in pith.paper-citation-record.v1 (files or folders of them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from curation.audit import Actor
from curation.record.builder import build_record
from curation.record.canonical import canonical_json
from curation.record.input_checks import RecordInputError, load_record, record_files
from curation.record.timestamps import parse_timestamp
from curation.services import RecordConflict, record_import


def first_difference(expected: Any, actual: Any, path: str = "$") -> str | None:
    """Return the JSON path of the first place two documents differ, or None."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in expected or key not in actual:
                return f"{path}.{key}"
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (a, b) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None if len(expected) == len(actual) else f"{path} (length)"
    return None if expected == actual else path


class Command(BaseCommand):
    help = "Import pith.paper-citation-record.v1 files or folders. Never triggers resolution."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument("--reason", default="import of citation records")

    def handle(self, *args: Any, **options: Any) -> None:
        actor = Actor.importer("import_records")
        failures = 0
        files = list(record_files(options["paths"]))
        if not files:
            raise CommandError("no record files found in the paths given")
        for path in files:
            try:
                document = load_record(path)
                outcome = record_import(document=document, actor=actor, reason=options["reason"])
            except RecordInputError as exc:
                failures += 1
                self.stderr.write(self.style.ERROR(f"rejected {exc}"))
                continue
            except RecordConflict as exc:
                failures += 1
                self.stderr.write(self.style.ERROR(f"rejected {path}: $: {exc}"))
                continue
            except ValueError as exc:
                # A value the checks let through that the import cannot read (they check every
                # timestamp, so none should): the file's transaction is rolled back, the next
                # file still imports.
                failures += 1
                self.stderr.write(self.style.ERROR(f"rejected {path}: $: cannot import: {exc}"))
                continue
            except DatabaseError as exc:
                # The checks should catch what the database refuses; if one slips past, the
                # import of this file is rolled back and the next file still imports.
                failures += 1
                first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
                self.stderr.write(
                    self.style.ERROR(f"rejected {path}: $: database refused it: {first_line}")
                )
                continue
            self.stdout.write(
                f"{path}: arXiv:{outcome.arxiv_id} created {outcome.created}, updated {outcome.updated}, "
                f"unchanged {outcome.unchanged}, retired {outcome.retired}"
            )
            for warning in outcome.warnings:
                self.stderr.write(self.style.WARNING(f"{path}: {warning}"))
            try:
                self._compare_export(path, document)
            except ValueError as exc:  # stored already: say so, and go on with the next file
                self.stderr.write(
                    self.style.WARNING(f"{path}: stored, but its export was not compared: {exc}")
                )
        if failures:
            raise CommandError(
                f"{failures} of {len(files)} file(s) rejected; the others were imported"
            )

    def _compare_export(self, path: Path, document: dict[str, Any]) -> None:
        """Warn when the stored record does not export to the file's bytes (e.g. newer snapshots)."""
        rebuilt = build_record(document["paper"]["arxiv_id"], parse_timestamp(document["as_of"]))
        if rebuilt is not None and canonical_json(rebuilt) != canonical_json(document):
            where = first_difference(document, rebuilt)
            self.stderr.write(
                self.style.WARNING(
                    f"{path}: stored, but the record now exports differently from the file at {where} "
                    "(the database holds other data for it, e.g. a newer paper snapshot)"
                )
            )
