"""Writing verdicts: SPEC §2's table, pinned observations, runs that count nothing twice."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from curation.audit import Actor
from curation.models import Observation, ObservationEvent, Paper, Resolution
from curation.resolution import selectors, services, tasks
from curation.resolution.models import (
    CrossrefWork,
    PinnedDisagreement,
    ResolutionChunk,
    ResolutionRun,
)
from curation.resolution.services import verdicts
from curation.resolution.services.catalogue_imports import store_crossref_works
from curation.states import Origin
from tests.resolution.conftest import FIXTURES, WIDGET_REFERENCE

pytestmark = pytest.mark.django_db
ACTOR = Actor.command("test")


@pytest.fixture
def catalogue() -> None:
    call_command("import_arxiv_snapshot", str(FIXTURES / "seed_catalogue.jsonl"), "--no-requeue",
                 stdout=io.StringIO(), verbosity=0)  # fmt: skip


def observe(raw: str, index: int = 1, **extra: object) -> Observation:
    citing, _ = Paper.objects.get_or_create(arxiv_id="2501.00001", defaults={"title": "Citing"})
    from curation.audit import audited

    with audited(ACTOR, "test setup"):
        return Observation.objects.create(
            paper=citing, source="test", reference_index=index,
            source_observed_at=timezone.now(), raw_text=raw, normalized_text=raw.lower(),
            changed_at=timezone.now() - dt.timedelta(days=1), **extra,
        )  # fmt: skip


def resolve(*observations: Observation) -> services.BatchOutcome:
    return services.observations_resolve(observations=list(observations), actor=ACTOR, reason="t")


def test_verified_reference_writes_link_and_raw_reference_fields(catalogue: None) -> None:
    obs = observe("Chen, T., Xu, B. Training deep nets with sublinear memory cost. "
                  "arXiv preprint arXiv:1604.06174, 2016.")  # fmt: skip
    assert resolve(obs).changed == 1
    obs.refresh_from_db()
    resolution = Resolution.objects.get(observation=obs)
    assert (resolution.status, resolution.resolver_source) == ("verified_exact", "local_arxiv")
    assert resolution.origin == Origin.COMPUTED
    assert obs.cited_paper.arxiv_id == "1604.06174"
    assert obs.cited_work.arxiv_id == "1604.06174"
    assert (obs.work_arxiv_id, obs.work_pith_arxiv_id) == ("1604.06174", "1604.06174")
    assert obs.work_metadata_source == "raw_reference" and obs.work_year == 2016
    assert obs.revision == 2
    assert resolution.evidence["identifier_resolved"] == "arXiv:1604.06174"
    event = ObservationEvent.objects.filter(pgh_obj=obs).latest("pgh_id")
    assert event.pgh_context.metadata["actor"] == "command:test"


def test_resolving_again_changes_nothing(catalogue: None) -> None:
    obs = observe("Sara Hooker. The Hardware Lottery, 2020.")
    resolve(obs)
    events = ObservationEvent.objects.count()
    outcome = resolve(Observation.objects.get(pk=obs.pk))
    assert (outcome.changed, outcome.unchanged) == (0, 1)
    assert ObservationEvent.objects.count() == events
    assert Observation.objects.get(pk=obs.pk).revision == 2


def test_new_evidence_alone_is_stored_without_a_new_revision(catalogue: None) -> None:
    from curation.audit import audited

    obs = observe("Sara Hooker. The Hardware Lottery, 2020.")
    resolve(obs)
    computed = Resolution.objects.get(observation=obs).evidence
    with audited(ACTOR, "test setup: evidence from an older resolver"):
        Resolution.objects.filter(observation=obs).update(evidence={"older": True})
    outcome = resolve(Observation.objects.get(pk=obs.pk))
    assert (outcome.changed, outcome.unchanged) == (0, 1)
    assert Resolution.objects.get(observation=obs).evidence == computed
    assert Observation.objects.get(pk=obs.pk).revision == 2


def test_unverified_states_link_nothing(catalogue: None) -> None:
    obs = observe("Smith, J. Quantum Gravity for Beginners. arXiv:1913.12345, 2019.")
    resolve(obs)
    obs.refresh_from_db()
    assert obs.resolution.status == "malformed_identifier"
    assert obs.cited_paper is None and obs.cited_work is None
    assert obs.resolution.evidence["identifiers"]["malformed"][0]["reason"].startswith("month 13")


def test_doi_verified_work_links_the_doi(catalogue: None) -> None:
    store_crossref_works(
        [
            {
                "DOI": "10.1000/j.1",
                "title": ["Journal Only Work on Widgets"],
                "author": [{"family": "Okafor"}],
                "issued": {"date-parts": [[2018]]},
            }
        ]
    )
    obs = observe("Okafor, A. Journal only work on widgets. J. Widgets, 2018. doi:10.1000/J.1")
    resolve(obs)
    obs.refresh_from_db()
    assert (obs.resolution.status, obs.resolution.resolver_source) == ("verified_exact", "doi")
    assert obs.cited_paper is None and obs.work_doi == "10.1000/j.1"
    assert obs.cited_work.doi == "10.1000/j.1"


def test_a_work_crossref_answered_is_kept_with_the_verdict(
    catalogue: None, crossref_knows_widget: dict[str, object]
) -> None:
    obs = observe(WIDGET_REFERENCE)
    resolve(obs)
    obs.refresh_from_db()
    assert (obs.resolution.status, obs.work_doi) == ("verified_exact", "10.5555/widget.1")
    assert CrossrefWork.objects.get(doi="10.5555/widget.1").title == "Widgets at Scale"


def test_pinned_observation_is_left_and_the_disagreement_kept(catalogue: None) -> None:
    obs = observe("Sara Hooker. The Hardware Lottery, 2020.", pinned=True)
    outcome = resolve(obs)
    assert outcome.pinned == 1
    obs.refresh_from_db()
    assert obs.revision == 1 and obs.cited_paper is None
    assert not Resolution.objects.filter(observation=obs).exists()
    disagreement = PinnedDisagreement.objects.get(observation=obs)
    assert (disagreement.status, disagreement.arxiv_id) == ("verified_exact", "2009.06489")


def test_a_chunk_delivered_twice_is_counted_once(catalogue: None) -> None:
    for i in range(5):
        observe(f"Sara Hooker. The Hardware Lottery {i}, 2020.", index=i)
    run = services.run_create(
        observations=selectors.select_observations(everything=True), selection={"all": True},
        actor=ACTOR, reason="batch", chunk_size=2,
    )  # fmt: skip
    chunk_ids = list(ResolutionChunk.objects.filter(run=run).values_list("pk", flat=True))
    assert len(chunk_ids) == 3
    for chunk_id in chunk_ids + chunk_ids[:1]:  # the first chunk is re-delivered
        tasks.resolve_chunk.delay(chunk_id)
    run.refresh_from_db()
    assert (run.done, run.total, run.status) == (5, 5, "done")
    assert run.progress == 1.0


def test_catalogue_import_requeues_unresolved_unpinned(
    tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    obs = observe("Sara Hooker. The Hardware Lottery, 2020.")
    pinned = observe("Sara Hooker. The Hardware Lottery again, 2020.", index=2, pinned=True)
    resolve(obs)
    assert Observation.objects.get(pk=obs.pk).resolution.status == "unresolved"
    with django_capture_on_commit_callbacks(execute=True):  # as outside a test's transaction
        call_command("import_arxiv_snapshot", str(FIXTURES / "seed_catalogue.jsonl"),
                     stdout=io.StringIO(), verbosity=0)  # fmt: skip
    assert Observation.objects.get(pk=obs.pk).resolution.status == "verified_exact"
    run = ResolutionRun.objects.get()
    assert run.selection == {"requeue": "catalogue import", "job": run.selection["job"]}
    assert run.total == 1
    assert Observation.objects.get(pk=pinned.pk).revision == 1


def test_resolve_references_writes_verdict_lines(catalogue: None, tmp_path: Path) -> None:
    source = tmp_path / "refs.jsonl"
    source.write_text(
        json.dumps({"id": "a", "raw": "Sara Hooker. The Hardware Lottery, 2020."})
        + "\n"
        + "{broken\n"
        + json.dumps({"id": "b", "raw": "E., Thekkath, C"})
        + "\n"
    )
    target = tmp_path / "out.jsonl"
    err = io.StringIO()
    call_command("resolve_references", "--input", str(source), "--output", str(target),
                 stdout=io.StringIO(), stderr=err, verbosity=0)  # fmt: skip
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert [(v["id"], v["status"], v["arxiv_id"]) for v in lines] == [
        ("a", "verified_exact", "2009.06489"),
        ("b", "parse_uncertain", None),
    ]
    assert set(lines[0]) == {"id", "status", "resolver_source", "arxiv_id", "doi", "title",
                             "score", "evidence"}  # fmt: skip
    assert "refs.jsonl:2:" in err.getvalue()
    assert Observation.objects.count() == 0


def test_a_worker_dying_mid_chunk_loses_and_duplicates_nothing(
    catalogue: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(3):
        observe(f"Sara Hooker. The Hardware Lottery {i}, 2020.", index=i)
    observe("Sara Hooker. The Hardware Lottery, 2020.", index=9)
    run = services.run_create(
        observations=selectors.select_observations(everything=True), selection={"all": True},
        actor=ACTOR, reason="batch", chunk_size=10,
    )  # fmt: skip
    chunk = ResolutionChunk.objects.get(run=run)
    real_apply = verdicts._apply_verdict
    calls = []

    def dying(*args: object, **kwargs: object) -> str:
        calls.append(1)
        if len(calls) == 3:
            raise SystemExit("worker killed")  # not an Exception: the batch cannot catch it
        return real_apply(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(verdicts, "_apply_verdict", dying)
    with pytest.raises(SystemExit):
        tasks.resolve_chunk.delay(chunk.pk)
    assert not Resolution.objects.exists()  # the chunk's transaction rolled back whole
    monkeypatch.setattr(verdicts, "_apply_verdict", real_apply)
    tasks.resolve_chunk.delay(chunk.pk)  # the broker re-delivers (acks_late)
    run.refresh_from_db()
    assert (run.done, run.total, run.status) == (4, 4, "done")
    assert Resolution.objects.count() == 4
    linked = Observation.objects.get(reference_index=9)
    assert linked.revision == 2 and linked.cited_paper.arxiv_id == "2009.06489"


def test_one_failing_observation_does_not_stop_the_batch(
    catalogue: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = observe("Sara Hooker. The Hardware Lottery, 2020.", index=1)
    bad = observe("Sara Hooker. The Hardware Lottery, 2020, again.", index=2)
    real_apply = verdicts._apply_verdict

    def failing(prepared, *args, **kwargs):  # type: ignore[no-untyped-def]
        if prepared.observation.pk == bad.pk:
            raise ValueError("broken row")
        return real_apply(prepared, *args, **kwargs)

    monkeypatch.setattr(verdicts, "_apply_verdict", failing)
    outcome = resolve(good, bad)
    assert (outcome.changed, outcome.failed) == (1, 1)
    assert "broken row" in outcome.errors[0]
    assert Resolution.objects.filter(observation=good).exists()
    assert not Resolution.objects.filter(observation=bad).exists()


# A collaboration's author list runs past the reference cap: the text keeps its start, so it
# prints neither the title nor the DOI; the .bib entry's doi field still names the work.
COLLABORATION_BIB = (
    "@article{atlas, author = {"
    + " and ".join(f"{'ABCDEFGHIJ'[n % 10]}{'klmnoprstu'[n // 10]}erson, A." for n in range(60))
    + "}, title = {Observation of a widget resonance in proton collisions},"
    " journal = {Widget Lett.}, year = {2012}, doi = {10.5555/widget.2012}}"
)


def test_a_doi_the_bib_entry_states_decides_when_the_text_does_not_print_it() -> None:
    from curation.references.latex_source import ArchiveLimits, bibliography_from_files
    from curation.services import reference_list_import
    from tests.resolution.test_conflicts import work

    store_crossref_works([work("10.5555/widget.2012", "Observation of a widget resonance in "
                               "proton collisions", 2012, "1", "1-10", "Akerson")])  # fmt: skip
    tex = b"\\documentclass{article}\\begin{document}\\cite{atlas}\\bibliography{refs}\\end{document}"
    files = {"main.tex": tex, "refs.bib": COLLABORATION_BIB.encode()}
    listed = bibliography_from_files(files, name="t", limits=ArchiveLimits(max_reference_chars=300))
    (entry,) = listed.entries
    assert "widget" not in entry.raw and entry.doi == "10.5555/widget.2012"
    reference_list_import(arxiv_id="2501.00077", references=listed.entries, actor=ACTOR, reason="t")
    obs = Observation.objects.get(paper__arxiv_id="2501.00077")

    resolve(obs)

    resolution = Resolution.objects.get(observation=obs)
    assert (resolution.status, resolution.resolver_source) == ("verified_exact", "doi")
    assert "10.5555/widget.2012" in resolution.evidence["identifier_resolved"]
    assert "10.5555/widget.2012" in resolution.evidence["identifiers"]["doi"]


def test_resolution_reads_the_parse_stored_at_import(
    catalogue: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from curation.references.listed import ListedReference
    from curation.services import reference_list_import

    raw = "Chen, T., Xu, B. Training deep nets with sublinear memory cost. arXiv:1604.06174, 2016."
    reference_list_import(
        arxiv_id="2501.00078", references=[ListedReference(1, raw)], actor=ACTOR, reason="t"
    )
    imported = Observation.objects.get(paper__arxiv_id="2501.00078")

    def parse_again(text: str) -> None:
        raise AssertionError(f"parsed again: {text}")

    monkeypatch.setattr(selectors, "parse_reference", parse_again)
    resolve(imported)

    assert Resolution.objects.get(observation=imported).status == "verified_exact"
    outcome = resolve(observe(raw))  # observed with no listing: its text is parsed
    assert outcome.failed == 1 and "parsed again" in (outcome.errors or [""])[0]
