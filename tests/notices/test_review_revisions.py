"""Notice reviews carry a revision: two reviewers deciding from the same page cannot both win,
the loser is told who decided, when and why, and the history keeps every decision and note.

Personas: Rita and Nora review notices; Carla curates (and may not review).
"""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from curation.audit import Actor
from curation.notices.models import NoticeReview, ReviewStatus
from curation.notices.selectors import review_queue
from curation.notices.services import refresh, review_decide
from curation.notices.services.review import StaleReview, review_history
from curation.permissions import CURATORS, NOTICE_REVIEWERS, ensure_groups
from curation.states import ChangeSource
from tests.admin.conftest import make_user

from .conftest import FakeCrossref, load_fixture
from .records import import_citing_record, work_for
from .test_review import CONCERN, MICPRO, NOTICE, _refresh_micpro, _review, index_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewers(db: Any) -> tuple[Any, Any]:
    ensure_groups()
    return make_user("rita", NOTICE_REVIEWERS), make_user("nora", NOTICE_REVIEWERS)


@pytest.fixture
def concern(crossref: FakeCrossref, reviewers: Any) -> NoticeReview:
    """Return the open review of an expression of concern about a cited work."""
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)
    return _review(CONCERN)


def as_admin(user: Any) -> Actor:
    return Actor.for_user(user, ChangeSource.ADMIN)


def change_url(review: NoticeReview) -> str:
    return f"/admin/notices/noticereview/{review.pk}/change/"


def shown_revision(html: str) -> int:
    """Return the revision the change page was drawn on (its hidden `revision` input)."""
    match = re.search(r'name="revision" value="(\d+)"', html)
    assert match, "the page carries no revision"
    return int(match.group(1))


# --- service -------------------------------------------------------------------------------


def test_a_decision_on_a_stale_revision_is_refused_with_who_when_why(
    concern: NoticeReview, reviewers: Any
) -> None:
    rita, nora = reviewers
    seen = concern.revision
    review_decide(
        review_id=concern.pk,
        decision="dismissed",
        note="names another paper",
        expected_revision=seen,
        actor=as_admin(rita),
    )

    with pytest.raises(StaleReview) as refused:
        review_decide(
            review_id=concern.pk,
            decision="confirmed",
            note="looks right to me",
            expected_revision=seen,
            actor=as_admin(nora),
        )

    detail = refused.value.detail()
    assert detail["changed_by"] == "user:rita" and detail["changed_at"]
    assert "names another paper" in detail["reason"]
    assert (detail["current_decision"], detail["current_note"]) == ("dismissed", "names another paper")
    assert (detail["expected_revision"], detail["current_revision"]) == (seen, seen + 1)
    assert "user:rita" in str(refused.value)
    stored = _review(CONCERN)
    assert (stored.status, stored.note, stored.reviewer_id) == ("dismissed", "names another paper", rita.pk)


def test_a_reopened_review_refuses_a_decision_made_on_the_old_event(
    crossref: FakeCrossref, concern: NoticeReview, reviewers: Any
) -> None:
    seen = _review(NOTICE).revision
    work = load_fixture("crossref_work_micpro_retracted.json")
    for entry in work["message"]["updated-by"]:
        entry["updated"] = {"date-parts": [[2024, 2, 20]]}  # the publisher re-dated the notice
    _refresh_micpro(crossref, work)  # the event changed: its review reopens

    assert _review(NOTICE).revision == seen + 1
    with pytest.raises(StaleReview):
        review_decide(
            review_id=_review(NOTICE).pk,
            decision="confirmed",
            note="decided on the old date",
            expected_revision=seen,
            actor=as_admin(reviewers[0]),
        )
    assert _review(NOTICE).status == ReviewStatus.NEW


def test_the_history_keeps_each_decision_and_note(concern: NoticeReview, reviewers: Any) -> None:
    rita, nora = reviewers
    review_decide(
        review_id=concern.pk, decision="dismissed", note="another paper",
        expected_revision=concern.revision, actor=as_admin(rita),
    )  # fmt: skip
    review_decide(
        review_id=concern.pk, decision="confirmed", note="it is this paper after all",
        expected_revision=concern.revision + 1, actor=as_admin(nora),
    )  # fmt: skip

    history = [(c.actor, c.status, c.note, c.revision) for c in review_history(concern.pk)]

    assert history[-2:] == [
        ("user:rita", "dismissed", "another paper", concern.revision + 1),
        ("user:nora", "confirmed", "it is this paper after all", concern.revision + 2),
    ]


# --- admin ---------------------------------------------------------------------------------


def test_two_reviewers_in_the_admin_the_second_must_choose(
    concern: NoticeReview, reviewers: Any
) -> None:
    rita, nora = (Client(), Client())
    rita.force_login(reviewers[0])
    nora.force_login(reviewers[1])
    url = change_url(concern)
    seen_by_rita = shown_revision(rita.get(url).content.decode())
    seen_by_nora = shown_revision(nora.get(url).content.decode())

    rita.post(url, {"decision": "dismissed", "decision_note": "another paper", "revision": seen_by_rita})
    stale = {"decision": "confirmed", "decision_note": "Nora: it is this one", "revision": seen_by_nora}
    refused = nora.post(url, stale)
    again = nora.post(url, stale)  # the same stale page posted again, without a choice

    for response in (refused, again):
        body = response.content.decode()
        assert response.status_code == 409 and 'id="review-conflict"' in body
        assert "rita made it" in body and "another paper" in body and "Nora: it is this one" in body
        assert 'name="on_conflict"' in body and 'type="radio"' in body
    stored = _review(CONCERN)
    assert (stored.status, stored.note) == ("dismissed", "another paper")

    shown = re.search(r'name="conflict_revision" value="(\d+)"', refused.content.decode())
    assert shown and int(shown.group(1)) == stored.revision
    nora.post(url, {**stale, "conflict_revision": shown.group(1), "on_conflict": "current"})
    assert (_review(CONCERN).status, _review(CONCERN).note) == ("dismissed", "another paper")
    nora.post(url, {**stale, "conflict_revision": shown.group(1), "on_conflict": "mine"})

    final = _review(CONCERN)
    assert (final.status, final.note, final.reviewer_id) == (
        "confirmed",
        "Nora: it is this one",
        reviewers[1].pk,
    )
    messages = [e.get_change_message() for e in LogEntry.objects.order_by("pk")]
    assert any("decision from new to dismissed" in m and "'another paper'" in m for m in messages)
    assert any(
        "decision from dismissed to confirmed" in m and "'Nora: it is this one'" in m
        for m in messages
    )
    page = nora.get(url).content.decode()
    history = page[page.index('id="review-history"') :]
    assert "another paper" in history and "Nora: it is this one" in history


def test_the_admin_index_counts_the_rows_the_queue_lists(
    crossref: FakeCrossref, concern: NoticeReview, reviewers: Any
) -> None:
    # A correction awaits review too: it is in the queue, though it is not an alert.
    doi = "10.1007/s11042-022-12345-6"
    import_citing_record(dois=[doi], citing="2412.00009")
    correction = load_fixture("crossref_work_two_types.json")
    correction["message"]["updated-by"] = correction["message"]["updated-by"][:2]
    crossref.work(doi, correction)
    crossref.notices(doi)
    refresh(work=work_for(doi), actor=Actor.command("t"), reason="t", sources=["crossref"])
    rita = Client()
    rita.force_login(reviewers[0])

    queue = rita.get("/admin/notices/noticereview/").content.decode()
    listed = queue.count('class="field-event_type"')
    total, alerts = index_counts(rita.get("/admin/").content.decode())

    assert total == listed == len(review_queue()) == 3
    assert alerts == 2


# --- API -----------------------------------------------------------------------------------


def api_client(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def review_url(review: NoticeReview) -> str:
    return f"/api/v1/notice-events/{review.event_id}/review"


def test_the_api_requires_the_revision_and_types_the_conflict(
    concern: NoticeReview, reviewers: Any
) -> None:
    rita, nora = (api_client(u) for u in reviewers)
    decision = {"decision": "dismissed", "note": "another paper"}

    missing = rita.post(review_url(concern), decision, format="json")
    won = rita.post(
        review_url(concern), decision, format="json", HTTP_IF_MATCH=f'"{concern.revision}"'
    )
    lost = nora.post(
        review_url(concern),
        {"decision": "confirmed", "note": "it is", "revision": concern.revision},
        format="json",
    )

    assert missing.status_code == 428, missing.content
    assert missing.json()["error"]["code"] == "revision_required"
    assert won.status_code == 200, won.content
    assert won.json()["review_state"] == "dismissed"
    assert won.json()["review_revision"] == concern.revision + 1
    assert lost.status_code == 409
    error = lost.json()["error"]
    assert error["code"] == "stale_revision"
    assert error["detail"]["current_revision"] == concern.revision + 1  # an integer
    assert error["detail"]["expected_revision"] == concern.revision
    assert error["detail"]["changed_by"] == "user:rita"
    assert error["detail"]["current_decision"] == "dismissed"
    assert _review(CONCERN).note == "another paper"


def test_a_curator_may_not_review(concern: NoticeReview, reviewers: Any) -> None:
    carla = api_client(make_user("carla", CURATORS))
    response = carla.post(
        review_url(concern),
        {"decision": "dismissed", "note": "x", "revision": concern.revision},
        format="json",
    )
    assert response.status_code == 403


@pytest.mark.django_db(transaction=True)
def test_concurrent_api_reviews_have_exactly_one_winner(
    crossref: FakeCrossref, reviewers: Any
) -> None:
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)
    review = _review(CONCERN)
    barrier = threading.Barrier(4)
    results: list[tuple[str, int, Any]] = []

    def decide(user: Any, decision: str) -> None:
        try:
            client = api_client(user)
            barrier.wait()
            response = client.post(
                review_url(review),
                {"decision": decision, "note": f"{user.username} says {decision}"},
                format="json",
                HTTP_IF_MATCH=f'"{review.revision}"',
            )
            results.append((user.username, response.status_code, response.json()))
        finally:
            connection.close()

    users = [*reviewers, *reviewers]
    threads = [
        threading.Thread(target=decide, args=(u, d))
        for u, d in zip(users, ["dismissed", "confirmed", "confirmed", "dismissed"], strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    codes = sorted(code for _, code, _ in results)
    assert codes == [200, 409, 409, 409]
    winner = next(body for _, code, body in results if code == 200)
    for _, code, body in results:
        if code == 409:
            assert body["error"]["detail"]["current_revision"] == review.revision + 1
            assert body["error"]["detail"]["current_decision"] == winner["review_state"]
    stored = _review(CONCERN)
    assert stored.revision == review.revision + 1 and stored.status == winner["review_state"]
