"""Resolve observations: one paper, one state, or everything; in workers or here (--sync).

`--resume RUN` queues a stuck run's unfinished chunks again (done chunks are never redone).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from curation.audit import Actor
from curation.resolution import selectors, services
from curation.resolution.models import ResolutionRun, RunStatus
from curation.states import ResolutionStatus


class Command(BaseCommand):
    help = "Resolve references by SPEC §2 and write the verdicts (pinned ones are left)."

    def add_arguments(self, parser: CommandParser) -> None:
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--paper", help="arXiv id of the citing paper")
        group.add_argument("--all", action="store_true", help="Every current observation")
        group.add_argument(
            "--state",
            choices=[s.value for s in ResolutionStatus] + ["never_resolved"],
            help="Observations currently in this state",
        )
        group.add_argument(
            "--resume",
            type=int,
            metavar="RUN",
            help="Queue (or, with --sync, do) a run's unfinished chunks",
        )
        parser.add_argument("--sync", action="store_true", help="Resolve here, not in workers")
        parser.add_argument("--reason", default="resolve command")
        parser.add_argument("--chunk-size", type=int, default=services.CHUNK_SIZE)

    def handle(self, *args: Any, **options: Any) -> None:
        actor = Actor.command("resolve")
        if options["resume"] is not None:
            self._resume(options["resume"], actor, options)
            return
        observations = selectors.select_observations(
            paper_id=options["paper"], state=options["state"], everything=options["all"]
        )
        if options["paper"] and not observations.exists():
            raise CommandError(f"no current observations for paper {options['paper']}")
        selection = {k: options[k] for k in ("paper", "state", "all")}
        run = services.run_create(
            observations=observations,
            selection=selection,
            actor=actor,
            reason=options["reason"],
            chunk_size=options["chunk_size"],
            queue=not options["sync"],  # else resolved here
        )
        if not options["sync"]:
            self.stdout.write(f"run {run.pk}: {run.total} observations queued")
            return
        self._resolve_here(run, actor, options)

    def _resume(self, run_id: int, actor: Actor, options: dict[str, Any]) -> None:
        run = selectors.run_by_pk(run_id)
        if run is None:
            raise CommandError(f"no resolution run {run_id}")
        if run.status == RunStatus.DONE:
            self.stdout.write(f"run {run.pk}: done already ({run.done}/{run.total})")
            return
        if not options["sync"]:
            queued = services.run_dispatch(run_id=run.pk)
            self.stdout.write(
                f"run {run.pk}: {queued} unfinished chunks queued again ({run.done}/{run.total} done)"
            )
            return
        self._resolve_here(run, actor, options)

    def _resolve_here(self, run: ResolutionRun, actor: Actor, options: dict[str, Any]) -> None:
        chunks = selectors.chunks_by_pk(services.run_unfinished_chunks(run.pk))
        with tqdm(total=run.total, initial=run.done, unit=" refs", file=self.stderr,
                  disable=options["verbosity"] < 1) as bar:  # fmt: skip
            for chunk in chunks:
                try:
                    services.chunk_resolve(chunk_id=chunk.pk, actor=actor)
                except services.ChunkBusy as exc:
                    self.stderr.write(f"{exc}: left to it")
                bar.update(len(chunk.observation_ids))
        run.refresh_from_db()
        self.stdout.write(
            f"run {run.pk}: {run.done}/{run.total} resolved, {run.changed} changed, "
            f"{run.failed} failed"
        )
        for error in run.errors:
            self.stderr.write(error)
