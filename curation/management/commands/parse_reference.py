"""Print how citerec reads one reference string."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from curation.references import parse_reference


class Command(BaseCommand):
    help = (
        "Print the parse of one reference as indented JSON: fields, identifiers, repairs and "
        'the usable-title judgement. Example: manage.py parse_reference "Vaswani, A. ... 2017."'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("reference", help='the reference text, or "-" to read it from stdin')

    def handle(self, *args: Any, **options: Any) -> None:
        raw = options["reference"]
        if raw == "-":
            raw = sys.stdin.read()
        self.stdout.write(json.dumps(parse_reference(raw).to_dict(), indent=2, ensure_ascii=False))
