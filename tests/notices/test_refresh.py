"""Refreshing a cited work: Crossref traps, failed sources, and what the record then says."""

from __future__ import annotations

import re
from typing import Any

import pytest

from curation.audit import Actor, audited
from curation.models import Paper
from curation.notices.models import NoticeEvent, ReceiptOutcome, SourceReceipt
from curation.notices.services import recompute_notices, refresh
from curation.states import Origin

from .conftest import FakeCrossref, load_fixture
from .records import (
    import_citing_record,
    notice_of,
    observation_of,
    record_html,
    record_json,
    work_for,
)

pytestmark = pytest.mark.django_db

ACTOR = Actor.command("tests")
MICPRO = "10.1016/j.micpro.2020.103053"
NOTICE = "10.1016/j.micpro.2024.105024"
TWO_TYPES = "10.1007/s11042-022-12345-6"
COMMA = "10.1002/(sici)1097-0258(19980430)17:8<857::aid-sim777>3.0.co,2-e"
RECEIPT_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00")


def _refresh(doi: str | None = None, arxiv_id: str | None = None, **kwargs: Any) -> Any:
    return refresh(work=work_for(doi, arxiv_id), actor=ACTOR, reason="test refresh", **kwargs)


def _serve_micpro(crossref: FakeCrossref) -> None:
    crossref.work(MICPRO, load_fixture("crossref_work_micpro_retracted.json"))
    crossref.notices(MICPRO, load_fixture("crossref_notices_micpro.json"))


def test_retracted_work_shows_in_json_and_html_with_digests_changed(
    crossref: FakeCrossref,
) -> None:
    import_citing_record(dois=[MICPRO, "10.1000/unrelated"])
    before = record_json()
    _serve_micpro(crossref)

    _refresh(MICPRO, sources=["crossref"])

    after = record_json()
    notice = notice_of(after, doi=MICPRO)
    assert notice["state"] == "measured" and notice["reason"] is None
    assert "observation" not in notice
    types = [(e["type"], e["notice_doi"], e["date"]) for e in notice["events"]]
    assert ("retraction", NOTICE, "2024-02-14") in types
    assert ("expression_of_concern", "10.1016/j.micpro.2021.104304", "2021-06-25") in types
    assert [e["date"] for e in notice["events"]] == sorted(e["date"] for e in notice["events"])
    assert set(notice["events"][0]) == {
        "date",
        "notice_doi",
        "notice_url",
        "reasons",
        "source",
        "source_record_id",
        "type",
    }
    assert [r["source"] for r in notice["source_receipts"]] == ["crossref"]
    assert RECEIPT_TIME.fullmatch(notice["source_receipts"][0]["observed_at"])
    assert after["context_digest"] != before["context_digest"]
    changed = [o for o in after["outbound"] if o["standing_notice"] == notice][0]
    unchanged = notice_of(after, doi="10.1000/unrelated")
    assert unchanged == notice_of(before, doi="10.1000/unrelated")  # still the imported notice
    assert changed["observation_digest"] not in {
        o["observation_digest"] for o in before["outbound"]
    }
    assert after["standing_sources"][0]["source"] == "crossref"
    html = record_html()
    assert "Retraction</span> 2024-02-14, reported by crossref" in html
    assert NOTICE in html


def test_refresh_replaces_the_imported_notice_and_bumps_revision_once(
    crossref: FakeCrossref,
) -> None:
    import_citing_record(dois=[MICPRO])
    observation = observation_of(work_for(MICPRO))
    assert observation.standing_notice.origin == Origin.IMPORTED
    _serve_micpro(crossref)

    _refresh(MICPRO, sources=["crossref"])
    first = observation_of(work_for(MICPRO))
    first_record = record_json()
    _refresh(MICPRO, sources=["crossref"])
    second = observation_of(work_for(MICPRO))

    assert first.standing_notice.origin == Origin.COMPUTED
    assert first.revision == observation.revision + 1
    # Nothing new: receipt times move (and the digest with them), the revision does not.
    assert (second.revision, second.changed_at) == (first.revision, first.changed_at)
    assert second.standing_notice.source_receipts != first.standing_notice.source_receipts
    assert record_json()["context_digest"] != first_record["context_digest"]


def test_no_event_found_names_the_latest_receipt_time(crossref: FakeCrossref) -> None:
    import_citing_record(dois=["10.1000/clean"])
    crossref.work("10.1000/clean", {"message-type": "work", "message": {"DOI": "10.1000/clean"}})
    crossref.notices("10.1000/clean")

    _refresh("10.1000/clean", sources=["crossref"])

    notice = notice_of(record_json(), doi="10.1000/clean")
    latest = notice["source_receipts"][0]["observed_at"]
    assert notice["events"] == []
    assert notice["observation"] == f"No event found in the named queried sources as of {latest}."


def test_a_notice_that_updates_another_work_is_not_itself_retracted(
    crossref: FakeCrossref,
) -> None:
    import_citing_record(dois=[NOTICE])
    crossref.work(NOTICE, load_fixture("crossref_work_notice_itself.json"))
    crossref.notices(NOTICE)

    _refresh(NOTICE, sources=["crossref"])

    events = notice_of(record_json(), doi=NOTICE)["events"]
    assert [(e["type"], e["notice_doi"]) for e in events] == [
        ("correction", "10.1016/j.micpro.2024.105100")
    ]


def test_the_same_notice_under_two_types_is_one_event(crossref: FakeCrossref) -> None:
    import_citing_record(dois=[TWO_TYPES])
    crossref.work(TWO_TYPES, load_fixture("crossref_work_two_types.json"))
    crossref.notices(TWO_TYPES)

    _refresh(TWO_TYPES, sources=["crossref"])

    events = notice_of(record_json(), doi=TWO_TYPES)["events"]
    by_notice = {e["notice_doi"]: e for e in events}
    assert len(events) == 2
    assert by_notice["10.1007/s11042-023-99999-1"]["type"] == "retraction"
    assert by_notice["10.1007/s11042-023-99999-1"]["source_record_id"] == "45001"
    assert by_notice["10.1007/s11042-022-12345-7"]["type"] == "other"


def test_a_doi_with_a_comma_is_asked_only_for_its_own_updated_by(
    crossref: FakeCrossref,
) -> None:
    import_citing_record(dois=[COMMA.upper()])
    crossref.work(COMMA, load_fixture("crossref_work_comma_doi.json"))

    outcome = _refresh(COMMA, sources=["crossref"])

    assert outcome.receipts == {"crossref": ReceiptOutcome.ANSWERED}
    assert not any(p.startswith("/works?") for p in crossref.paths())  # no truncated filter
    events = notice_of(record_json(), doi=COMMA.upper())["events"]
    assert [e["type"] for e in events] == ["retraction"]
    assert "comma" in SourceReceipt.objects.get(source="crossref").detail


def test_a_lower_cased_or_upper_cased_doi_finds_the_same_notices(
    crossref: FakeCrossref,
) -> None:
    import_citing_record(dois=[MICPRO.upper()])
    _serve_micpro(crossref)

    _refresh(MICPRO, sources=["crossref"])

    assert crossref.paths()[0] == f"/works/{MICPRO}"
    assert notice_of(record_json(), doi=MICPRO.upper())["events"]


def _catalogue(arxiv_id: str, **values: Any) -> None:
    with audited(ACTOR, "test catalogue data"):
        Paper.objects.filter(arxiv_id=arxiv_id).update(in_catalogue=True, **values)


def test_an_arxiv_work_is_asked_about_by_its_published_doi(crossref: FakeCrossref) -> None:
    import_citing_record(arxiv_cited=["2101.00001"])
    _catalogue("2101.00001", doi=MICPRO.upper())
    _serve_micpro(crossref)

    outcome = _refresh(arxiv_id="2101.00001", sources=["crossref", "arxiv"])

    assert outcome.receipts == {"crossref": "answered", "arxiv": "answered"}
    assert not any("10.48550" in p for p in crossref.paths())
    notice = notice_of(record_json(), cited="2101.00001")
    assert "retraction" in {e["type"] for e in notice["events"]}
    assert [r["source"] for r in notice["source_receipts"]] == ["arxiv", "crossref"]


def test_an_arxiv_doi_is_never_sent_to_crossref(crossref: FakeCrossref) -> None:
    import_citing_record(dois=["10.48550/arXiv.2101.00002"])

    outcome = _refresh("10.48550/arxiv.2101.00002", sources=["crossref"])

    assert outcome.receipts == {}  # nothing to ask: no published DOI known
    assert crossref.paths() == []
    notice = notice_of(record_json(), doi="10.48550/arXiv.2101.00002")
    assert (notice["state"], notice["reason"]) == ("unavailable", "no_source_answered")


def test_an_arxiv_withdrawal_comment_is_an_event(crossref: FakeCrossref) -> None:
    import_citing_record(arxiv_cited=["0704.0046"])
    _catalogue("0704.0046", comments="This paper has been withdrawn by the author due to an error")

    _refresh(arxiv_id="0704.0046", sources=["arxiv"])

    [event] = notice_of(record_json(), cited="0704.0046")["events"]
    assert (event["type"], event["source"], event["notice_url"]) == (
        "withdrawal",
        "arxiv",
        "https://arxiv.org/abs/0704.0046v1",
    )
    assert event["date"] == "2024-12-18"  # the paper's last update


def test_a_failed_source_is_left_out_and_never_reads_as_no_event(
    crossref: FakeCrossref,
) -> None:
    import_citing_record(dois=[MICPRO])
    crossref.work(MICPRO, status=503)

    outcome = _refresh(MICPRO, sources=["crossref", "retraction_watch"])

    # Crossref failed; Retraction Watch was never imported, so it cannot answer either.
    assert outcome.receipts == {"crossref": "failed", "retraction_watch": "failed"}
    assert SourceReceipt.objects.filter(outcome="failed").count() == 2
    notice = notice_of(record_json(), doi=MICPRO)
    assert notice == {
        "events": [],
        "reason": "no_source_answered",
        "source_receipts": [],
        "state": "unavailable",
    }


def test_a_failure_after_an_answer_keeps_the_answer_and_its_time(
    crossref: FakeCrossref,
) -> None:
    import_citing_record(dois=[MICPRO])
    _serve_micpro(crossref)
    _refresh(MICPRO, sources=["crossref"])
    answered = notice_of(record_json(), doi=MICPRO)
    crossref.server.clear()
    crossref.work(MICPRO, status=500)

    _refresh(MICPRO, sources=["crossref"])

    # The retraction found earlier stays, dated by the earlier answer, not by the failure.
    assert notice_of(record_json(), doi=MICPRO) == answered
    assert SourceReceipt.objects.filter(outcome="failed").count() == 1


def test_offline_mode_asks_nothing_and_leaves_an_offline_receipt(
    crossref: FakeCrossref,
) -> None:
    import_citing_record(dois=[MICPRO])
    crossref.client.offline = True

    outcome = _refresh(MICPRO, sources=["crossref"])

    assert outcome.receipts == {"crossref": ReceiptOutcome.OFFLINE}
    assert crossref.paths() == []
    assert notice_of(record_json(), doi=MICPRO)["reason"] == "no_source_answered"


def test_crossref_404_is_not_an_answer(crossref: FakeCrossref) -> None:
    import_citing_record(dois=["10.1000/unknown"])
    crossref.work("10.1000/unknown", status=404)
    crossref.notices("10.1000/unknown")

    outcome = _refresh("10.1000/unknown", sources=["crossref"])

    assert outcome.receipts == {"crossref": ReceiptOutcome.NOT_FOUND}
    assert notice_of(record_json(), doi="10.1000/unknown")["state"] == "unavailable"


def test_a_notice_no_longer_reported_leaves_the_record(crossref: FakeCrossref) -> None:
    import_citing_record(dois=[MICPRO])
    _serve_micpro(crossref)
    _refresh(MICPRO, sources=["crossref"])
    crossref.server.clear()
    crossref.work(MICPRO, {"message-type": "work", "message": {"DOI": MICPRO}})
    crossref.notices(MICPRO)

    outcome = _refresh(MICPRO, sources=["crossref"])

    assert outcome.gone == NoticeEvent.objects.count() > 0
    assert notice_of(record_json(), doi=MICPRO)["events"] == []


def test_an_observation_without_a_canonical_link_is_unavailable() -> None:
    import_citing_record(dois=[None])
    observation = observation_of(None)  # type: ignore[arg-type]

    recompute_notices(observations=[observation], actor=ACTOR, reason="link removed")

    [item] = record_json()["outbound"]
    assert item["standing_notice"] == {
        "events": [],
        "reason": "canonical_work_link_unavailable",
        "source_receipts": [],
        "state": "unavailable",
    }
