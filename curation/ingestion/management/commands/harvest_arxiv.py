"""Harvest arXiv metadata (OAI-PMH arXivRaw) into the catalogue, from where it stopped."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from curation.audit import Actor
from curation.clients.arxiv import ArxivError
from curation.ingestion import services as ingestion


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--from {value!r}: expected a date as YYYY-MM-DD") from None


class Command(BaseCommand):
    help = (
        "Harvest arXiv metadata since the last harvest (or --from DATE), page by page; "
        "a stopped harvest resumes at its last page."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--from", dest="from_date", type=_date, default=None)
        parser.add_argument("--set", dest="set_spec", default="", help="an OAI set, e.g. cs")

    def handle(self, *args: Any, **options: Any) -> None:
        bar = tqdm(unit=" records", disable=None)

        def progress(outcome: ingestion.HarvestOutcome) -> None:
            bar.update(outcome.records - bar.n)
            bar.set_postfix(pages=outcome.pages, new=outcome.inserted, updated=outcome.updated)

        try:
            outcome = ingestion.harvest_run(
                actor=Actor.importer("harvest_arxiv"), reason=ingestion.HARVEST_REASON,
                set_spec=options["set_spec"], from_date=options["from_date"], progress=progress,
            )  # fmt: skip
        except ArxivError as exc:
            raise CommandError(f"harvest stopped: {exc} (run it again to resume)") from exc
        finally:
            bar.close()
        self.stdout.write(
            f"harvest {options['set_spec'] or 'all'} from {outcome.from_date or 'the start'}"
            f"{' (resumed)' if outcome.resumed else ''}: {outcome.records:,} records in "
            f"{outcome.pages} pages, {outcome.inserted:,} new, {outcome.updated:,} updated, "
            f"{outcome.deleted:,} deleted; up to {outcome.last_datestamp or '-'}; "
            f"{len(outcome.new_versions)} ingested papers have a new version (queued)"
        )
