"""Draw a sample of automatic links for curators to check, per band of calibrated probability
(the admin's Resolver precision page does the same; on many millions of links the draw runs
longer than a web request may, so a large deployment draws here)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from curation.audit import Actor
from curation.services.link_samples import link_sample_draw
from curation.services.observations import CurationError


class Command(BaseCommand):
    help = "Draw up to N automatic links per probability band for curators to check."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--per-band", type=int, default=20, help="links per band")
        parser.add_argument("--seed", required=True, help="the same seed draws the same links")
        parser.add_argument("--reason", default="measure the resolver's automatic links")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            sample = link_sample_draw(
                per_band=options["per_band"], seed=options["seed"], reason=options["reason"],
                actor=Actor.command("draw_link_sample"),
            )  # fmt: skip
        except CurationError as exc:
            raise CommandError(str(exc)) from exc
        counts: dict[str, int] = {}
        for band in sample.items.values_list("band", flat=True):
            counts[band] = counts.get(band, 0) + 1
        for band, links in sorted(sample.strata.items()):
            self.stdout.write(f"{band}: {counts.get(band, 0)} drawn of {links:,} links")
        self.stdout.write(f"sample {sample.pk}: {sum(counts.values())} links to check")
