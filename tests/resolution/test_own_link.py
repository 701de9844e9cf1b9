"""No self-feeding (issue 13): citerec's own link is never read back as what a reference said."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.management import call_command
from django.utils import timezone

from curation.audit import Actor, audited
from curation.models import Observation, Paper
from curation.resolution import services
from curation.resolution.models import PinnedDisagreement
from tests.resolution.conftest import FIXTURES

pytestmark = pytest.mark.django_db
ACTOR = Actor.command("test")


@pytest.fixture
def catalogue() -> None:
    call_command("import_arxiv_snapshot", str(FIXTURES / "seed_catalogue.jsonl"), "--no-requeue",
                 stdout=io.StringIO(), verbosity=0)  # fmt: skip


def imported(**work: object) -> Observation:
    """Return an observation as a record import stores it (no raw text, its cited_work)."""
    citing, _ = Paper.objects.get_or_create(arxiv_id="2501.00001", defaults={"title": "Citing"})
    with audited(ACTOR, "test setup"):
        return Observation.objects.create(
            paper=citing, source="pith", reference_index=1, source_observed_at=timezone.now(),
            changed_at=timezone.now() - dt.timedelta(days=1), **work,
        )  # fmt: skip


def resolve(observation: Observation) -> None:
    services.observations_resolve(observations=[observation], actor=ACTOR, reason="test")


def test_a_second_run_does_not_read_the_first_runs_link(catalogue: None) -> None:
    obs = imported(work_title="The Hardware Lottery", work_year=2020)
    resolve(obs)
    obs.refresh_from_db()
    assert obs.work_pith_arxiv_id == "2009.06489"  # v1's cited_work.pith_arxiv_id is the link
    assert obs.imported_pith_arxiv_id is None
    resolve(obs)
    evidence = Observation.objects.get(pk=obs.pk).resolution.evidence
    assert evidence["identifiers"]["pith_arxiv_id"] is None
    assert evidence["step"] == "title", "the link must not come back as an identifier"


def test_an_imported_pith_arxiv_id_still_counts(catalogue: None) -> None:
    obs = imported(work_title="The Hardware Lottery", work_pith_arxiv_id="2009.06489",
                   imported_pith_arxiv_id="2009.06489")  # fmt: skip
    resolve(obs)
    evidence = Observation.objects.get(pk=obs.pk).resolution.evidence
    assert evidence["step"] == "identifier"
    assert evidence["identifier_resolved"] == "pith_arxiv_id:2009.06489"


def test_a_curators_link_is_compared_never_read(catalogue: None) -> None:
    other = Paper.objects.get(arxiv_id="1604.06174")
    obs = imported(work_title="The Hardware Lottery", work_pith_arxiv_id=other.arxiv_id,
                   cited_paper=other, pinned=True)  # fmt: skip
    resolve(obs)
    disagreement = PinnedDisagreement.objects.get(observation=obs)
    assert (disagreement.status, disagreement.arxiv_id) == ("verified_exact", "2009.06489")
    assert disagreement.evidence["identifiers"]["pith_arxiv_id"] is None
