"""Staff review: confirm, dismiss as a false match, reopen on change; mail; the admin queue."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from curation.audit import Actor
from curation.notices.models import NoticeEvent, NoticeReview, ReviewStatus
from curation.notices.notify import REVIEWERS_GROUP
from curation.notices.selectors import review_queue, unreviewed_alert_count
from curation.notices.services import MissingNote, refresh, review_decide
from curation.states import ChangeSource

from .conftest import FakeCrossref, load_fixture
from .records import import_citing_record, notice_of, observation_of, record_json, work_for

pytestmark = pytest.mark.django_db

MICPRO = "10.1016/j.micpro.2020.103053"
NOTICE = "10.1016/j.micpro.2024.105024"
CONCERN = "10.1016/j.micpro.2021.104304"


@pytest.fixture
def reviewer() -> Any:
    user = get_user_model().objects.create_user(
        "rita", "rita@example.org", "pw-Xk2!long", is_staff=True
    )
    user.groups.add(Group.objects.get(name=REVIEWERS_GROUP))
    return user


def index_counts(html: str) -> tuple[int, int]:
    """Return (awaiting review, alerts) as the admin index shows them."""
    found = dict(re.findall(r'id="notice-(queue|alert)-count">(\d+)<', html))
    return int(found["queue"]), int(found["alert"])


def _actor(user: Any) -> Actor:
    return Actor.for_user(user, ChangeSource.ADMIN)


def _refresh_micpro(crossref: FakeCrossref, work: Any = None) -> Any:
    crossref.server.clear()
    crossref.work(MICPRO, work or load_fixture("crossref_work_micpro_retracted.json"))
    crossref.notices(MICPRO, load_fixture("crossref_notices_micpro.json"))
    return refresh(
        work=work_for(MICPRO), actor=Actor.command("tests"), reason="test", sources=["crossref"]
    )


def _review(notice_doi: str) -> NoticeReview:
    return NoticeReview.objects.select_related("event").get(event__notice_doi=notice_doi)


def test_new_events_open_reviews_most_severe_first(crossref: FakeCrossref) -> None:
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)

    queue = list(review_queue())

    assert [r.event.type for r in queue] == ["retraction", "expression_of_concern"]
    assert unreviewed_alert_count() == 2


def test_confirm_keeps_the_event_public_and_records_who(
    crossref: FakeCrossref, reviewer: Any
) -> None:
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)
    before = record_json()

    review = review_decide(
        review_id=_review(NOTICE).pk,
        decision="confirmed",
        note="checked",
        expected_revision=_review(NOTICE).revision,
        actor=_actor(reviewer),
    )

    assert (review.status, review.reviewer_id, review.note) == ("confirmed", reviewer.pk, "checked")
    assert record_json()["outbound"] == before["outbound"]
    context = review.history.order_by("pgh_id").last().pgh_context  # type: ignore[attr-defined]
    assert context.metadata["user"] == reviewer.pk
    assert "checked" in context.metadata["reason"]


def test_a_decision_needs_a_note(crossref: FakeCrossref, reviewer: Any) -> None:
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)

    with pytest.raises(MissingNote):
        review_decide(
            review_id=_review(NOTICE).pk,
            decision="dismissed",
            note=" ",
            expected_revision=_review(NOTICE).revision,
            actor=_actor(reviewer),
        )
    assert _review(NOTICE).status == ReviewStatus.NEW


def test_dismissed_event_leaves_the_record_but_stays_in_history(
    crossref: FakeCrossref, reviewer: Any
) -> None:
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)
    before = record_json()
    revision = observation_of(work_for(MICPRO)).revision

    review_decide(
        review_id=_review(CONCERN).pk,
        decision="dismissed",
        note="the notice names another paper",
        expected_revision=_review(CONCERN).revision,
        actor=_actor(reviewer),
    )

    after = record_json()
    notices = [e["notice_doi"] for e in notice_of(after, doi=MICPRO)["events"]]
    assert CONCERN not in notices and NOTICE in notices
    assert after["context_digest"] != before["context_digest"]
    assert observation_of(work_for(MICPRO)).revision == revision + 1
    event = NoticeEvent.objects.get(notice_doi=CONCERN)
    assert event.dismissed
    assert event.history.filter(dismissed=False).exists()  # type: ignore[attr-defined]
    # A refresh that finds the same event again does not bring it back.
    _refresh_micpro(crossref)
    assert CONCERN not in [e["notice_doi"] for e in notice_of(record_json(), doi=MICPRO)["events"]]


def test_a_changed_event_reopens_its_review(crossref: FakeCrossref, reviewer: Any) -> None:
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)
    review_decide(
        review_id=_review(NOTICE).pk,
        decision="dismissed",
        note="looked wrong",
        expected_revision=_review(NOTICE).revision,
        actor=_actor(reviewer),
    )
    work = load_fixture("crossref_work_micpro_retracted.json")
    for entry in work["message"]["updated-by"]:
        entry["updated"] = {"date-parts": [[2024, 2, 20]]}  # the publisher re-dated the notice

    _refresh_micpro(crossref, work)

    review = _review(NOTICE)
    assert (review.status, review.reviewer_id, review.note) == ("new", None, "")
    assert not review.event.dismissed
    events = notice_of(record_json(), doi=MICPRO)["events"]
    assert {"retraction", "2024-02-20"} <= {v for e in events for v in (e["type"], e["date"])}


def test_new_retractions_email_the_reviewers(
    crossref: FakeCrossref,
    reviewer: Any,
    mailoutbox: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    import_citing_record(dois=[MICPRO])

    with django_capture_on_commit_callbacks(execute=True):
        _refresh_micpro(crossref)

    [mail] = mailoutbox
    assert mail.to == ["rita@example.org"]
    assert "2 new retraction notice(s)" in mail.subject
    assert NOTICE in mail.body and "arXiv:2412.00001" in mail.body
    with django_capture_on_commit_callbacks(execute=True):
        _refresh_micpro(crossref)  # nothing new: nobody is mailed again
    assert len(mailoutbox) == 1


def test_corrections_do_not_email(
    crossref: FakeCrossref,
    reviewer: Any,
    mailoutbox: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    doi = "10.1007/s11042-022-12345-6"
    import_citing_record(dois=[doi])
    work = load_fixture("crossref_work_two_types.json")
    work["message"]["updated-by"] = work["message"]["updated-by"][:2]  # erratum and correction
    crossref.work(doi, work)
    crossref.notices(doi)

    with django_capture_on_commit_callbacks(execute=True):
        refresh(work=work_for(doi), actor=Actor.command("t"), reason="t", sources=["crossref"])

    assert mailoutbox == []
    assert NoticeReview.objects.get().status == "new"


def test_admin_queue_and_decision(crossref: FakeCrossref, reviewer: Any) -> None:
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)
    client = Client()
    client.force_login(reviewer)

    index = client.get("/admin/").content.decode()
    queue = client.get("/admin/notices/noticereview/").content.decode()
    review = _review(CONCERN)
    page = client.get(f"/admin/notices/noticereview/{review.pk}/change/")
    refused = client.post(
        f"/admin/notices/noticereview/{review.pk}/change/",
        {"decision": "dismissed", "revision": review.revision},
    )
    still_new = _review(CONCERN).status == "new"  # the note is required
    client.post(
        f"/admin/notices/noticereview/{review.pk}/change/",
        {"decision": "dismissed", "decision_note": "another paper", "revision": review.revision},
    )

    assert index_counts(index) == (2, 2)
    assert queue.index("Retraction") < queue.index("Expression of concern")
    assert page.status_code == 200 and "arXiv:2412.00001" in page.content.decode()
    assert refused.status_code == 200 and still_new
    assert _review(CONCERN).status == "dismissed" and _review(CONCERN).reviewer_id == reviewer.pk
    assert index_counts(client.get("/admin/").content.decode()) == (1, 1)
