"""Import a paper's reference list (BibTeX, .bbl, plain text, GROBID TEI, JATS)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from curation.audit import Actor
from curation.limits import InputTooLarge, current_limits, read_bounded
from curation.references import formats
from curation.references.formats import ListedReference, ReferenceInputError, read_references
from curation.references.formats.bib import BIBTEX_MACROS_BOUNDED
from curation.references.formats.bibtex_macros import EXPANSION_FACTOR, MAX_VALUE_CHARS
from curation.references.identifiers import NotAnArxivId, required_arxiv_id
from curation.services import reference_list_import

FORMATS = ("auto", *formats.FORMATS)  # a new reader in references/formats is a choice here too


class Command(BaseCommand):
    help = "Create or update a paper's observations from a reference list, in source order."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("arxiv_id")
        parser.add_argument("file", type=Path)
        parser.add_argument("--format", choices=FORMATS, default="auto")
        parser.add_argument("--source", default="reference_list", help="observation source name")
        parser.add_argument("--reason", default="import of a reference list")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        try:  # before the file is read: nothing is created for an id that is not one
            arxiv_id = required_arxiv_id(options["arxiv_id"])
        except NotAnArxivId as exc:
            raise CommandError(str(exc)) from None
        limits = current_limits()
        try:
            size_limit = limits.describe("reference_file_bytes", "bytes")
            data = read_bounded(path, limits.reference_file_bytes, size_limit)
        except InputTooLarge as exc:
            raise CommandError(f"{path}: {exc}") from None
        except OSError as exc:
            raise CommandError(f"{path}: cannot read: {exc.strerror}") from exc
        try:
            references = list(
                read_references(
                    data,
                    format=options["format"],
                    name=str(path),
                    max_chars=limits.reference_chars,
                )
            )
        except ReferenceInputError as exc:
            raise CommandError(str(exc)) from exc
        del data
        for reference in references:
            self._warn_if_cut(path, reference, limits.describe("reference_chars", "characters"))
        if not references:
            raise CommandError(f"{path}: no references found")
        outcome = reference_list_import(
            arxiv_id=arxiv_id,
            references=references,
            actor=Actor.importer("import_references"),
            reason=options["reason"],
            source=options["source"],
        )
        self.stdout.write(
            f"{path}: arXiv:{outcome.arxiv_id} {len(references)} references: created {outcome.created}, "
            f"updated {outcome.updated}, unchanged {outcome.unchanged}, retired {outcome.retired}, "
            f"restored {outcome.restored}"
        )
        for warning in outcome.warnings:
            self.stderr.write(self.style.WARNING(f"{path}: {warning}"))

    def _warn_if_cut(self, path: Path, reference: ListedReference, limit: str) -> None:
        """Say which reference was cut to the size limit, or had its @string expansion
        bounded (it is kept, flagged, in its place)."""
        where = f"{path}: line {reference.line or '?'}: reference {reference.index}"
        if BIBTEX_MACROS_BOUNDED in reference.problems:
            self.stderr.write(
                self.style.WARNING(
                    f"{where}: its @string macros expand past the file's bound ({EXPANSION_FACTOR}"
                    f" times its size, {MAX_VALUE_CHARS:,} characters a value): they are left "
                    "unexpanded or cut"
                )
            )
        for problem in reference.problems:
            if problem.startswith("truncated_from_"):
                length = int(problem.split("_")[2])
                self.stderr.write(
                    self.style.WARNING(
                        f"{where}: {length:,} characters, longer than {limit}; its start is kept"
                    )
                )
