"""Build records for arXiv papers: metadata, e-print, reference list, verdicts."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from curation.audit import Actor
from curation.ingestion import selectors
from curation.ingestion import services as ingestion

ACTOR = Actor.command("add_papers")


class Command(BaseCommand):
    help = (
        "Fetch arXiv papers' metadata and sources, read their reference lists and resolve them. "
        "Jobs go to the ingestion queue (run in process with --sync, or when no broker is set)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("arxiv_ids", nargs="+", metavar="ID")
        parser.add_argument("--sync", action="store_true", help="ingest in this process")
        parser.add_argument("--force", action="store_true", help="read the source again")
        parser.add_argument("--reason", default=ingestion.ADD_REASON)

    def handle(self, *args: Any, **options: Any) -> None:
        reason = options["reason"]
        if options["sync"]:
            outcome = ingestion.ingestion_request(
                arxiv_ids=options["arxiv_ids"], actor=ACTOR, reason=reason, force=True
            )
            for arxiv_id in outcome.queued:
                try:
                    result = ingestion.paper_ingest(
                        arxiv_id=arxiv_id, actor=ACTOR, reason=reason, force=options["force"]
                    )
                except ingestion.PaperBusy as exc:
                    self.stderr.write(self.style.WARNING(f"{exc}: left to that job"))
                    continue
                self.stdout.write(f"arXiv:{arxiv_id}: {result.state} {result.summary()}")
        else:
            outcome = ingestion.papers_add(
                arxiv_ids=options["arxiv_ids"], actor=ACTOR, reason=reason, force=options["force"]
            )
            for arxiv_id in outcome.queued:
                self.stdout.write(f"arXiv:{arxiv_id}: {self._state(arxiv_id)}")
        for arxiv_id in outcome.active:
            self.stdout.write(f"arXiv:{arxiv_id}: already queued ({self._state(arxiv_id)})")
        for refused in outcome.refused:
            self.stderr.write(self.style.ERROR(refused.why))
        if outcome.refused:
            raise CommandError(f"{len(outcome.refused)} of {len(options['arxiv_ids'])} refused")

    def _state(self, arxiv_id: str) -> str:
        found = selectors.ingestion_of(arxiv_id)
        if found is None:
            return "unknown"
        return found.state + (f": {found.error}" if found.error else "")
