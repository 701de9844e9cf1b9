"""Curator decisions: audited, pinned, revertible, and never a lost update."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.core.management import call_command
from django.test import Client

from curation.audit import Actor
from curation.models import Observation
from curation.references.listed import ListedReference
from curation.selectors import same_text_observations
from curation.services import reference_list_import
from curation.services.observation_groups import (
    observation_split,
    observations_apply_same_text,
    observations_merge,
)
from curation.services.observations import (
    CurationError,
    StaleRevision,
    observation_correct,
    observation_link_arxiv,
    observation_mark_no_canonical_record,
    observation_retire,
    observation_revert,
    observation_set_state,
)
from curation.states import ChangeSource

pytestmark = pytest.mark.django_db

ALICE = Actor(name="alice", source=ChangeSource.ADMIN, user_id=1)
BOB = Actor(name="bob", source=ChangeSource.ADMIN, user_id=2)


@pytest.fixture
def sample(sample_record_path: Path) -> dict[str, Any]:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    return json.loads(sample_record_path.read_text())  # type: ignore[no-any-return]


def ref(n: int) -> Observation:
    return Observation.objects.select_related("resolution", "cited_paper").get(
        paper__arxiv_id="2412.14374", reference_index=n
    )


def record(client: Client) -> dict[str, Any]:
    return json.loads(client.get("/paper/2412.14374/citation-record.json").content)  # type: ignore[no-any-return]


def test_linking_an_arxiv_paper_writes_the_outcome_columns_and_pins(
    client: Client, sample: dict[str, Any]
) -> None:
    before = record(client)
    observation = ref(7)

    observation_link_arxiv(
        observation=observation,
        arxiv_id="1410.0759",
        expected_revision=observation.revision,
        actor=ALICE,
        reason="cuDNN paper, checked on arXiv",
    )

    after = record(client)
    item = after["outbound"][6]
    assert item["resolution"]["status"] == "verified_exact"
    assert (
        item["resolution"]["resolver_source"] == "pith"
    )  # known only through records, not the catalogue
    assert item["citation"]["cited_paper"]["arxiv_id"] == "1410.0759"
    assert item["citation"]["cited_work"]["pith_arxiv_id"] == "1410.0759"
    assert item["observation_digest"] != before["outbound"][6]["observation_digest"]
    assert after["context_digest"] != before["context_digest"]
    assert after["reference_resolution"]["state_counts"]["verified_exact"] == 1
    stored = ref(7)
    assert stored.pinned and stored.revision == observation.revision + 1
    assert stored.resolution.origin == "curator"
    assert stored.resolution.evidence["previous"]["status"] == "unresolved"
    event = (
        apps.get_model("curation", "ResolutionEvent")
        .objects.filter(pgh_obj_id=stored.pk)
        .latest("pgh_id")
    )
    assert event.pgh_context.metadata["actor"] == "alice"
    assert event.pgh_context.metadata["reason"] == "cuDNN paper, checked on arXiv"


def test_linking_an_unknown_paper_changes_nothing(sample: dict[str, Any]) -> None:
    observation = ref(9)
    with pytest.raises(CurationError, match="not in the catalogue"):
        observation_link_arxiv(
            observation=observation,
            arxiv_id="2010.11929",
            expected_revision=observation.revision,
            actor=ALICE,
            reason="ViT",
        )
    assert ref(9).revision == observation.revision and not ref(9).pinned


def test_second_curator_saving_a_stale_page_is_refused_with_the_other_change(
    sample: dict[str, Any],
) -> None:
    seen_by_alice = ref(33)
    seen_by_bob = ref(33)  # two sessions opened the same observation

    observation_set_state(
        observation=seen_by_alice,
        status="parse_uncertain",
        expected_revision=seen_by_alice.revision,
        actor=ALICE,
        reason="BibTeX artefact 'write newline'",
    )
    with pytest.raises(StaleRevision) as refused:
        observation_set_state(
            observation=seen_by_bob,
            status="unresolved",
            expected_revision=seen_by_bob.revision,
            actor=BOB,
            reason="looks unresolved",
        )

    message = str(refused.value)
    assert "alice" in message and "BibTeX artefact 'write newline'" in message
    assert ref(33).resolution.status == "parse_uncertain"


def test_set_state_unlinks_and_refuses_verified_states(sample: dict[str, Any]) -> None:
    observation = ref(2)
    observation_set_state(
        observation=observation,
        status="parse_uncertain",
        expected_revision=observation.revision,
        actor=ALICE,
        reason="test",
    )
    assert ref(2).cited_paper is None
    with pytest.raises(CurationError, match="needs a link"):
        observation_set_state(
            observation=ref(2),
            status="verified_fuzzy",
            expected_revision=ref(2).revision,
            actor=ALICE,
            reason="x",
        )


def test_revert_restores_the_imported_version_and_is_itself_audited(
    client: Client, sample: dict[str, Any]
) -> None:
    original = record(client)["outbound"][5]
    observation = ref(6)
    events = apps.get_model("curation", "ObservationEvent")
    imported_version = events.objects.filter(pgh_obj_id=observation.pk, pgh_label="insert").get()
    observation_set_state(
        observation=observation,
        status="parse_uncertain",
        expected_revision=observation.revision,
        actor=ALICE,
        reason="mistake",
    )

    observation_revert(
        observation=ref(6),
        event_id=imported_version.pgh_id,
        expected_revision=ref(6).revision,
        actor=BOB,
        reason="undo alice's mistake",
    )

    restored = record(client)["outbound"][5]
    assert restored == original  # byte-identical to the imported observation again
    last = events.objects.filter(pgh_obj_id=observation.pk).latest("pgh_id")
    assert last.pgh_context.metadata["reason"] == "undo alice's mistake"


def test_no_canonical_record_takes_the_reference_off_the_queue(sample: dict[str, Any]) -> None:
    observation_mark_no_canonical_record(
        observation=ref(12), expected_revision=ref(12).revision, actor=ALICE, reason="software"
    )
    stored = ref(12)
    assert stored.no_canonical_record and stored.resolution.status == "unresolved"
    assert stored.resolution.resolver_source == "raw_fallback"


def test_corrections_are_limited_to_described_fields(sample: dict[str, Any]) -> None:
    observation_correct(
        observation=ref(5),
        changes={"work_title": "Unknown", "work_year": 2024},
        expected_revision=ref(5).revision,
        actor=ALICE,
        reason="year 1901 is a parse error",
    )
    assert ref(5).work_year == 2024
    with pytest.raises(CurationError, match="cannot correct cited_paper"):
        observation_correct(
            observation=ref(5),
            changes={"cited_paper": None},
            expected_revision=ref(5).revision,
            actor=ALICE,
            reason="x",
        )


def test_retired_junk_leaves_the_record(client: Client, sample: dict[str, Any]) -> None:
    observation_retire(
        observation=ref(33), expected_revision=ref(33).revision, actor=ALICE, reason="artefact"
    )
    body = record(client)
    assert body["reference_resolution"]["total_outbound_references"] == 32
    assert all(o["citation"]["reference_index"] != 33 for o in body["outbound"])


Ref = ListedReference  # a reference as every reader returns it


SHARED = (
    "Jouppi, N. et al. In-Datacenter Performance Analysis of a Tensor Processing Unit. ISCA 2017."
)


def _lists() -> None:
    for arxiv_id in ("2501.00100", "2501.00200", "2501.00300"):
        reference_list_import(
            arxiv_id=arxiv_id,
            references=[Ref(1, SHARED), Ref(2, f"Other reference of {arxiv_id}, 2020.")],
            actor=Actor.importer("test"),
            reason="fixture",
        )


def test_one_fix_applies_to_every_observation_with_the_same_text() -> None:
    _lists()
    first = Observation.objects.get(paper__arxiv_id="2501.00100", reference_index=1)
    observation_mark_no_canonical_record(
        observation=first, expected_revision=first.revision, actor=ALICE, reason="no arXiv copy"
    )

    first = Observation.objects.get(pk=first.pk)
    targets = list(same_text_observations(first))
    assert len(targets) == 2
    outcome = observations_apply_same_text(
        observation=first,
        expected_revision=first.revision,
        target_revisions={str(o.pk): o.revision for o in targets},
        actor=ALICE,
        reason="same reference",
    )
    assert (outcome.done, outcome.skipped) == (2, [])
    others = Observation.objects.filter(raw_text=SHARED).select_related("resolution")
    assert {(o.no_canonical_record, o.pinned, o.resolution.resolver_source) for o in others} == {
        (True, True, "raw_fallback")
    }


def test_merge_and_split_are_audited_and_keep_the_originals_in_history() -> None:
    _lists()
    a = Observation.objects.get(paper__arxiv_id="2501.00100", reference_index=1)
    b = Observation.objects.get(paper__arxiv_id="2501.00100", reference_index=2)
    merged = observations_merge(
        keep=a,
        duplicates=[b],
        revisions={str(a.pk): a.revision, str(b.pk): b.revision},
        actor=ALICE,
        reason="duplicate",
    )
    assert (merged.done, merged.skipped) == (1, [])
    assert Observation.objects.get(pk=b.pk).retired_at is not None

    parts = observation_split(
        observation=a,
        parts=["First work. 2019.", "Second work. 2020."],
        expected_revision=a.revision,
        actor=ALICE,
        reason="two works",
    )
    assert [p.raw_text for p in parts] == ["First work. 2019.", "Second work. 2020."]
    assert Observation.objects.get(pk=a.pk).retired_at is not None
    with pytest.raises(CurationError):
        observation_split(
            observation=parts[0],
            parts=["only one"],
            expected_revision=parts[0].revision,
            actor=ALICE,
            reason="x",
        )


def test_split_and_same_text_refuse_a_stale_revision() -> None:
    _lists()
    seen = Observation.objects.get(paper__arxiv_id="2501.00100", reference_index=1)
    observation_mark_no_canonical_record(
        observation=seen, expected_revision=seen.revision, actor=BOB, reason="first"
    )
    with pytest.raises(StaleRevision):
        observation_split(
            observation=seen,
            parts=["A. 2019.", "B. 2020."],
            actor=ALICE,
            reason="x",
            expected_revision=seen.revision,
        )
    with pytest.raises(StaleRevision):
        observations_apply_same_text(
            observation=seen,
            expected_revision=seen.revision,
            target_revisions={},
            actor=ALICE,
            reason="x",
        )
    assert (
        Observation.objects.filter(paper__arxiv_id="2501.00100", retired_at__isnull=True).count()
        == 2
    )


def test_accepting_the_same_link_again_writes_nothing(
    client: Client, sample: dict[str, Any]
) -> None:
    """Issue 41 item 4: a decision already standing gives no revision, no history, no new time."""
    observation = ref(7)
    decide = {"arxiv_id": "1410.0759", "actor": ALICE, "reason": "cuDNN paper"}
    observation_link_arxiv(
        observation=observation, expected_revision=observation.revision, **decide
    )
    linked = ref(7)
    before, events = record(client), _events(linked)
    again = observation_link_arxiv(observation=linked, expected_revision=linked.revision, **decide)
    assert again.revision == linked.revision == ref(7).revision
    assert ref(7).resolution.observed_at == linked.resolution.observed_at
    assert _events(linked) == events
    assert record(client) == before  # the record's bytes and times did not move
    # A different decision still writes.
    observation_set_state(
        observation=linked, status="unresolved", expected_revision=linked.revision, actor=ALICE,
        reason="not it after all",
    )  # fmt: skip
    assert ref(7).revision == linked.revision + 1


def _events(observation: Observation) -> tuple[int, int]:
    counts = [
        apps.get_model("curation", name).objects.filter(pgh_obj_id=observation.pk).count()
        for name in ("ObservationEvent", "ResolutionEvent")
    ]
    return counts[0], counts[1]


def test_a_notice_check_after_a_link_does_not_make_the_curators_next_save_stale(
    sample: dict[str, Any],
) -> None:
    """Issue 41 item 4: the app's own follow-up must not conflict with the curator."""
    from django.db.models import F

    from curation.audit import audited

    observation = ref(7)
    linked = observation_link_arxiv(
        observation=observation, arxiv_id="1410.0759", expected_revision=observation.revision,
        actor=ALICE, reason="cuDNN paper",
    )  # fmt: skip
    seen = linked.revision  # the page the curator is still on
    with audited(Actor.task("refresh_works", None), "standing notices of newly linked works"):
        Observation.objects.filter(pk=linked.pk).update(revision=F("revision") + 1)
    observation_set_state(
        observation=linked, status="unresolved", expected_revision=seen, actor=ALICE,
        reason="not it after all",
    )  # fmt: skip
    assert ref(7).resolution.status == "unresolved" and ref(7).revision == seen + 2
    # A change a curator makes is still a conflict for a page that did not see it.
    with pytest.raises(StaleRevision):
        observation_set_state(
            observation=linked, status="parse_uncertain", expected_revision=seen, actor=BOB,
            reason="an artefact",
        )  # fmt: skip


def test_no_match_on_a_reference_that_prints_a_doi_links_no_work(sample: dict[str, Any]) -> None:
    """Issue 41 item 4: "No match" keeps the DOI the reference printed, and links no work (so no
    "newly linked work" notice check runs); only a verified state links one (SPEC §2)."""
    from curation.audit import audited
    from curation.models import Resolution

    observation = ref(9)
    with audited(Actor.command("test"), "a reference that prints a DOI, resolved by it"):
        Observation.objects.filter(pk=observation.pk).update(work_doi="10.1000/printed.1")
        Resolution.objects.filter(observation=observation).update(resolver_source="doi")
    observation = ref(9)
    observation_set_state(
        observation=observation, status="unresolved", expected_revision=observation.revision,
        actor=ALICE, reason="no match",
    )  # fmt: skip
    after = ref(9)
    assert after.resolution.status == "unresolved" and after.resolution.resolver_source == "doi"
    assert after.work_doi == "10.1000/printed.1" and after.cited_work is None
