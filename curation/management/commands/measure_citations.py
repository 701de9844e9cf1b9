"""Record Crossref's dated citation count for papers with a published DOI."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from curation.audit import Actor
from curation.selectors import papers_to_measure
from curation.services.measurements import measure_paper


class Command(BaseCommand):
    help = "Store Crossref's is-referenced-by-count for one paper or for every paper with a record."

    def add_arguments(self, parser: CommandParser) -> None:
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--paper", help="arXiv id")
        target.add_argument(
            "--all", action="store_true", help="every paper with a record and a DOI"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["paper"]:
            papers = papers_to_measure(options["paper"])
            if not papers.exists():
                raise CommandError(f"unknown paper arXiv:{options['paper']}")
        else:
            papers = papers_to_measure()
        actor = Actor.command("measure_citations")
        measured = 0
        for paper in tqdm(papers.iterator(), total=papers.count(), disable=not options["all"]):
            outcome = measure_paper(paper, actor=actor)
            measured += outcome.measured
            self.stdout.write(f"arXiv:{outcome.arxiv_id}: {outcome.detail}")
        self.stdout.write(f"{measured} measured")
