"""Refresh the standing notices of one cited work, or of every cited work, by hand."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from curation.audit import Actor
from curation.models import CitedWork
from curation.notices.selectors import cited_works, work_named
from curation.notices.services import ALL_SOURCES, refresh


def find_work(ref: str) -> CitedWork:
    """Return the work named by a primary key, a DOI, or an arXiv id (`arXiv:` optional)."""
    work = work_named(ref)
    if work is None:
        raise CommandError(f"no cited work {ref!r} (expected a work id, a DOI or an arXiv id)")
    return work


class Command(BaseCommand):
    help = "Ask Crossref, Retraction Watch and arXiv about cited works and recompute notices."

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--work", help="work id, DOI or arXiv id")
        which.add_argument("--all", action="store_true", help="every cited work")
        parser.add_argument("--source", action="append", choices=ALL_SOURCES, dest="sources")
        parser.add_argument("--reason", default="notice refresh by hand")

    def handle(self, *args: Any, **options: Any) -> None:
        actor = Actor.command("refresh_notices")
        sources = options["sources"] or ALL_SOURCES
        if options["work"]:
            works = [find_work(options["work"])]
        else:
            works = list(cited_works().order_by("pk"))
        changed = 0
        # One transaction per work: stopping half way keeps what is done; re-running is harmless.
        for work in tqdm(works, desc="works", disable=not sys.stderr.isatty()):
            outcome = refresh(work=work, actor=actor, reason=options["reason"], sources=sources)
            changed += outcome.notices_changed
            if options["work"]:
                receipts = ", ".join(f"{s} {o}" for s, o in outcome.receipts.items())
                self.stdout.write(
                    f"{work}: {receipts or 'no source to ask'}; {outcome.new_or_changed} new or "
                    f"changed events; {outcome.notices_refreshed} notices recomputed"
                )
        self.stdout.write(f"{len(works)} work(s) refreshed; {changed} notice(s) changed")
