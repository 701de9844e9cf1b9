"""Resolve raw references from a JSON-lines file into verdict lines (no observations made)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from curation.resolution.verdicts import resolve_reference_lines


class Command(BaseCommand):
    help = 'Read {"id", "raw"} lines and write one verdict per line: the evaluation entry point.'

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--input", type=Path, required=True)
        parser.add_argument("--output", type=Path, required=True)
        parser.add_argument("--batch-size", type=int, default=200)

    def handle(self, *args: Any, **options: Any) -> None:
        source: Path = options["input"]
        if not source.is_file():
            raise CommandError(f"{source}: no such file")
        written = bad = 0
        with (
            source.open(encoding="utf-8") as lines,
            options["output"].open("w") as out,
            tqdm(unit=" refs", file=self.stderr, disable=options["verbosity"] < 1) as bar,
        ):
            for result in resolve_reference_lines(lines, source, options["batch_size"]):
                if "error" in result:
                    bad += 1
                    self.stderr.write(result["error"])
                    continue
                out.write(json.dumps(result, ensure_ascii=False) + "\n")
                written += 1
                bar.update(1)
        self.stdout.write(f"{written} verdicts written to {options['output']}, {bad} lines skipped")
