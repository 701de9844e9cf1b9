"""curation.bulk_sql: rows written through one JSON parameter read back exactly as Django writes
them, with their history under the audit context."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.apps import apps
from django.utils import timezone

from curation.audit import Actor, audited
from curation.bulk_sql import insert_rows, update_rows
from curation.models import Observation, Paper, Resolution

pytestmark = pytest.mark.django_db

ACTOR = Actor.command("test")
AWKWARD = 'O\'Brien "quoted" \\ back, ünïcødé ✓ 日本, {braces} [1], %s %(x)s'


def test_inserted_and_updated_rows_read_back_exactly_with_history() -> None:
    stamp = timezone.make_aware(dt.datetime(2026, 3, 4, 5, 6, 7, 890123), dt.UTC)
    with audited(ACTOR, "setup"):
        paper = Paper.objects.create(arxiv_id="2501.00002", title="Citing")
        made = [
            Observation(paper=paper, source="t", reference_index=i, raw_text=AWKWARD if i else None,
                        normalized_text=f"n{i}", source_observed_at=stamp, changed_at=stamp,
                        work_year=None if i else 1999)
            for i in range(3)
        ]  # fmt: skip
        Observation.objects.bulk_create(made)
    evidence = {"text": AWKWARD, "nested": [1, 2.5, None, True, {"k": "v"}], "at": "2026"}
    with audited(ACTOR, "bulk write"):
        resolutions = [
            Resolution(observation=o, status="unresolved", resolver_source="raw_fallback",
                       origin="computed", resolver_version="v", evidence=evidence,
                       observed_at=stamp)
            for o in made
        ]  # fmt: skip
        insert_rows(Resolution, resolutions)
        for o in made:
            o.work_title, o.revision, o.changed_at = AWKWARD, o.revision + 1, stamp
        made[1].work_title = None
        update_rows(Observation, made, ["work_title", "revision", "changed_at"])
    assert all(not r._state.adding for r in resolutions)
    stored = {r.observation_id: r for r in Resolution.objects.all()}
    assert set(stored) == {o.pk for o in made}
    for r in stored.values():
        assert (r.evidence, r.observed_at, r.status, r.origin) == (
            evidence, stamp, "unresolved", "computed",
        )  # fmt: skip
    again = {o.pk: o for o in Observation.objects.all()}
    assert [again[o.pk].work_title for o in made] == [AWKWARD, None, AWKWARD]
    assert [again[o.pk].revision for o in made] == [2, 2, 2]
    assert again[made[0].pk].work_year == 1999 and again[made[1].pk].raw_text == AWKWARD
    assert isinstance(made[0].pk, uuid.UUID)
    events = apps.get_model("curation", "ResolutionEvent").objects.filter(pgh_label="insert")
    assert events.count() == 3
    updates = apps.get_model("curation", "ObservationEvent").objects.filter(pgh_label="update")
    assert updates.count() == 3
    reasons = {e.pgh_context.metadata.get("reason") for e in [*events, *updates]}
    assert reasons == {"bulk write"}


def test_writes_outside_an_audit_context_are_refused() -> None:
    with audited(ACTOR, "setup"):
        paper = Paper.objects.create(arxiv_id="2501.00003", title="Citing")
    paper.title = "changed"
    with pytest.raises(Exception, match="(?i)context|audit"):
        update_rows(Paper, [paper], ["title"])


def test_insert_with_database_keys_skips_conflicts_and_returns_what_it_inserted() -> None:
    from curation.models import CitedWork

    with audited(ACTOR, "setup"):
        CitedWork.objects.create(doi="10.1/taken", title="Already there")
    with audited(ACTOR, "bulk write"):
        made = [CitedWork(doi="10.1/taken", title="again"), CitedWork(doi="10.1/new", title=AWKWARD),
                CitedWork(arxiv_id="2501.00009", title="")]  # fmt: skip
        found = insert_rows(
            CitedWork, made, skip_conflicts=True, returning=["id", "doi", "arxiv_id"]
        )
    assert {(doi, arxiv) for _, doi, arxiv in found} == {(None, "2501.00009"), ("10.1/new", None)}
    stored = {w.pk: w for w in CitedWork.objects.all()}
    for pk, doi, arxiv in found:
        assert (stored[pk].doi, stored[pk].arxiv_id) == (doi, arxiv)
        assert stored[pk].created_at is not None
    assert stored[next(pk for pk, doi, _ in found if doi)].title == AWKWARD
    assert CitedWork.objects.get(doi="10.1/taken").title == "Already there"
    events = apps.get_model("curation", "CitedWorkEvent").objects.filter(pgh_label="insert")
    assert {e.pgh_context.metadata.get("reason") for e in events} == {"setup", "bulk write"}
    assert events.count() == 3


def test_rows_given_as_mappings_insert_as_model_instances_do() -> None:
    from curation.models import StandingNotice

    stamp = timezone.make_aware(dt.datetime(2026, 3, 4, 5, 6, 7, 890123), dt.UTC)
    with audited(ACTOR, "setup"):
        paper = Paper.objects.create(arxiv_id="2501.00003", title="Citing")
        made = [
            Observation(paper=paper, source="t", reference_index=i, normalized_text=f"m{i}",
                        source_observed_at=stamp, changed_at=stamp)
            for i in range(2)
        ]  # fmt: skip
        Observation.objects.bulk_create(made)
    values = {"state": "unavailable", "reason": "no_source_answered", "observation_text": AWKWARD,
              "events": [{"k": AWKWARD}], "source_receipts": [], "origin": "computed"}  # fmt: skip
    with audited(ACTOR, "bulk write"):
        insert_rows(
            StandingNotice, [{"observation_id": made[0].pk, "refreshed_at": stamp, **values}]
        )
        insert_rows(
            StandingNotice, [StandingNotice(observation=made[1], refreshed_at=stamp, **values)]
        )
    first, second = (StandingNotice.objects.get(pk=o.pk) for o in made)
    fields = [f.name for f in StandingNotice._meta.concrete_fields if f.name != "observation"]
    assert [getattr(first, f) for f in fields] == [getattr(second, f) for f in fields]
    assert first.refreshed_at == stamp and first.events == [{"k": AWKWARD}]
    events = apps.get_model("curation", "StandingNoticeEvent").objects.filter(pgh_label="insert")
    assert events.count() == 2  # history as for any insert


def test_mapping_rows_are_refused_for_a_column_that_sets_itself_on_save() -> None:
    from curation.models import CitedWork

    with audited(ACTOR, "bulk write"), pytest.raises(TypeError, match="created_at sets its value"):
        insert_rows(CitedWork, [{"id": None, "doi": "10.1/x", "arxiv_id": None, "title": "t"}])


def test_documents_orjson_refuses_encode_as_the_standard_library_does() -> None:
    """A key that is not a string or an integer beyond 64 bits: json.dumps takes the document."""
    offset = dt.timezone(dt.timedelta(hours=5, minutes=30))
    stamp = dt.datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=offset)
    with audited(ACTOR, "setup"):
        paper = Paper.objects.create(arxiv_id="2501.00003", title="Citing")
        observation = Observation.objects.create(
            paper=paper,
            source="t",
            reference_index=0,
            normalized_text="n",
            source_observed_at=stamp,
            changed_at=stamp,
        )
    with audited(ACTOR, "bulk write"):
        for evidence in ({7: "an int key", "big": 2**70}, {"plain": [1.5, "ü"]}):
            Resolution.objects.filter(observation=observation).delete()
            insert_rows(Resolution, [
                Resolution(observation=observation, status="unresolved", origin="computed",
                           resolver_source="raw_fallback", resolver_version="v",
                           evidence=evidence, observed_at=stamp)
            ])  # fmt: skip
            stored = Resolution.objects.get(observation=observation)
            assert stored.evidence == {str(k): v for k, v in evidence.items()}
            assert stored.observed_at == stamp  # the same instant, whatever its offset
