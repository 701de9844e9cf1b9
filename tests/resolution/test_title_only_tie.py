"""The title-only tie: two catalogue works share a title and the reference gives nothing else.

An imported record's observation often carries only its cited work's fields (no raw string):
the resolver then decides by title (resolver/by_title.py). When two works have the same title
and nothing in the reference tells them apart, linking either would be a guess, so the verdict
is unresolved and both are listed for curators; a year that one of them contradicts decides.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from curation.audit import Actor
from curation.models import Observation
from curation.record.canonical import observation_digest
from curation.resolution.resolver import ReferenceInput, Verdict, resolve_inputs
from curation.resolution.services import observations_resolve
from curation.services import record_import
from curation.states import ResolutionStatus
from tests import records_factory as rf
from tests.resolution.conftest import FIXTURES
from tests.resolution.snapshot import snapshot_line

pytestmark = pytest.mark.django_db

TITLE = "Neural Ordinary Differential Equations"
CHEN = "1806.07366"  # the NeurIPS 2018 paper
LOPEZ = "2107.00201"  # another work of the same title: other authors, year and journal
CITING = "2409.00007"


@pytest.fixture
def same_title(tmp_path: Path) -> None:
    """Load the seed catalogue and two papers that share TITLE and nothing else."""
    path = tmp_path / "catalogue.jsonl"
    chen = snapshot_line(
        CHEN, TITLE, "Ricky T. Q. Chen, Yulia Rubanova, Jesse Bettencourt, David Duvenaud", 2018,
        journal_ref="Advances in Neural Information Processing Systems 31 (2018)",
    )  # fmt: skip
    lopez = snapshot_line(
        LOPEZ, TITLE, "Maria Lopez, Tomas Berg", 2021, category="math.NA",
        journal_ref="SIAM J. Numer. Anal. 59 (2021) 1020-1041",
    )  # fmt: skip
    path.write_text((FIXTURES / "seed_catalogue.jsonl").read_text() + f"{chen}\n{lopez}\n")
    call_command("import_arxiv_snapshot", str(path), "--no-requeue", stdout=io.StringIO(),
                 verbosity=0)  # fmt: skip


def _cited_work(title: str = TITLE, year: int | None = None, venue: str | None = None) -> Verdict:
    """Resolve one reference read from an imported cited_work (no raw string, no identifier)."""
    item = ReferenceInput.from_cited_work(
        title=title, year=year, venue=venue, doi=None, arxiv_id=None, pith_arxiv_id=None
    )
    (verdict,) = resolve_inputs([item])
    return verdict


def _listed(verdict: Verdict) -> set[str]:
    return {c["arxiv_id"] for c in verdict.evidence["candidates"]}


@pytest.mark.parametrize("title", [TITLE, TITLE.lower(), f"{TITLE}."])
def test_a_title_alone_that_two_works_share_is_left_to_curators(
    same_title: None, title: str
) -> None:
    verdict = _cited_work(title)

    assert verdict.status == ResolutionStatus.UNRESOLVED, verdict.evidence["decision"]
    assert verdict.linked is None and verdict.arxiv_id is None
    assert (
        verdict.evidence["decision"] == "two or more records match equally well: left to curators"
    )
    assert {CHEN, LOPEZ} <= _listed(verdict)


@pytest.mark.parametrize(("year", "linked"), [(2018, CHEN), (2019, CHEN), (2021, LOPEZ)])
def test_a_year_one_of_them_contradicts_breaks_the_tie(
    same_title: None, year: int, linked: str
) -> None:
    verdict = _cited_work(year=year)

    assert verdict.status == ResolutionStatus.VERIFIED_EXACT, verdict.evidence["decision"]
    assert verdict.arxiv_id == linked
    assert {CHEN, LOPEZ} <= _listed(verdict)  # the other is shown, contradicted by the year


def test_an_agreeing_venue_alone_does_not_break_the_tie(same_title: None) -> None:
    """A venue only supports a match (scoring.venue_check) and weighs less than the margin."""
    verdict = _cited_work(venue="Advances in Neural Information Processing Systems")

    assert verdict.status == ResolutionStatus.UNRESOLVED, verdict.evidence["decision"]
    venues = {c["arxiv_id"]: c["venue_check"] for c in verdict.evidence["candidates"]}
    assert (venues[CHEN], venues[LOPEZ]) == ("agrees", "unknown")


def _imported(title: str, year: int | None) -> Observation:
    """Import a record citing TITLE through its cited_work only, as other systems' records do."""
    item: dict[str, Any] = rf.observation(CITING, 1, title=title)
    work = item["citation"]["cited_work"]
    work.update(pith_arxiv_id=None, year=year)
    item["links"].pop("cited_paper", None)
    item["observation_digest"] = observation_digest(item)
    record_import(document=rf.record(CITING, [item]), actor=Actor.command("test"), reason="test")
    return Observation.objects.get(paper__arxiv_id=CITING)


@pytest.mark.parametrize(
    ("year", "status", "linked"),
    [(None, ResolutionStatus.UNRESOLVED, None), (2021, ResolutionStatus.VERIFIED_EXACT, LOPEZ)],
)
def test_an_imported_observation_is_linked_only_when_the_tie_is_broken(
    same_title: None, year: int | None, status: str, linked: str | None
) -> None:
    observation = _imported(TITLE, year)

    observations_resolve(observations=[observation], actor=Actor.command("test"), reason="test")

    observation.refresh_from_db()
    assert observation.resolution.status == status
    cited = observation.cited_paper.arxiv_id if observation.cited_paper else None
    assert cited == linked
