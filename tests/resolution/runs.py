"""A small resolution run over the seed catalogue, for the run tests (in process and on workers)."""

from __future__ import annotations

import io

from django.core.management import call_command
from django.utils import timezone

from curation.audit import Actor, audited
from curation.models import Observation, Paper
from curation.resolution import selectors, services
from curation.resolution.models import ResolutionRun
from tests.resolution.conftest import FIXTURES

ACTOR = Actor.command("test")


def make_run(count: int, chunk_size: int) -> ResolutionRun:
    """Return a queued run of `count` references to catalogue papers, in chunks of chunk_size."""
    call_command("import_arxiv_snapshot", str(FIXTURES / "seed_catalogue.jsonl"), "--no-requeue",
                 stdout=io.StringIO(), verbosity=0)  # fmt: skip
    titles = list(Paper.objects.order_by("arxiv_id").values_list("title", flat=True))
    now = timezone.now()
    with audited(ACTOR, "test setup"):
        citing = Paper.objects.create(arxiv_id="2501.00001", title="Citing")
        Observation.objects.bulk_create(
            Observation(paper=citing, source="test", reference_index=i,
                        raw_text=f"A. Author. {titles[i % len(titles)]}. Preprint, 2024. ({i})",
                        normalized_text=f"ref {i}", source_observed_at=now, changed_at=now)
            for i in range(count)
        )  # fmt: skip
    return services.run_create(
        observations=selectors.select_observations(everything=True),
        selection={"all": True}, actor=ACTOR, reason="run test", chunk_size=chunk_size,
    )  # fmt: skip
