"""Curator screens speak one language (issue 26, items 4-6 and 9): one name per screen, one time
format, people by name, a notice review that says what it did and answers a refusal with 409,
the admin index listing recent decisions, and one change-log row per decision.

Personas: Alice (Alice Martin) and Bob curate; Rita and Nora review notices."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from curation.audit import Actor
from curation.moments import moment_html, moment_text
from curation.people import person, public_person, user_names
from curation.permissions import NOTICE_REVIEWERS
from curation.states import ChangeSource
from tests.notices.conftest import FakeCrossref, crossref  # noqa: F401 - the fixture
from tests.notices.records import import_citing_record
from tests.notices.test_review import CONCERN, MICPRO, _refresh_micpro, _review

from .conftest import CITING, make_user
from .helpers import decide, page_url

LOG = "/admin/curation/observation/log/"
# Every time on a curator screen: the minute in UTC, the exact instant in the attributes.
TIME = re.compile(r'<time datetime="[^"]+" title="[^"]+">([^<]*)</time>')
MINUTE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")
# The formats the screens used before: seconds, ISO 8601 with a T, Django's "Dec. 3, 2026".
OTHER_TIMES = re.compile(r">[^<]*(\d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d|[A-Z][a-z]{2}\. \d{1,2}, \d{4})")


def times(body: str) -> list[str]:
    """Return the text of every <time> element, after checking each is in the one format."""
    shown = TIME.findall(body)
    assert shown, "no <time> element"
    assert all(MINUTE.fullmatch(t) for t in shown), shown
    return shown


def visible(body: str) -> str:
    """Return the page without its <pre> blocks (raw JSON keeps the record's own timestamps)."""
    return re.sub(r"<pre[^>]*>.*?</pre>", "", body, flags=re.S)


@pytest.fixture
def alice_martin(alice: Client) -> Client:
    """Alice, with her full name on her account."""
    get_user_model().objects.filter(username="alice").update(first_name="Alice", last_name="Martin")
    return alice


# --- one time format, people by name ---------------------------------------------------------


def test_every_time_is_written_to_the_minute_in_utc() -> None:
    instant = datetime(2026, 12, 3, 19, 15, 42, 123456, tzinfo=timezone(timedelta(hours=1)))
    assert moment_text(instant) == "2026-12-03 18:15 UTC"
    assert moment_text("2026-12-03T18:15:42.123456+00:00") == "2026-12-03 18:15 UTC"
    assert moment_text(datetime(2026, 12, 3, 18, 15)) == "2026-12-03 18:15 UTC"  # naive is UTC
    assert str(moment_html(instant)) == (
        '<time datetime="2026-12-03T18:15:42.123456Z" title="2026-12-03T18:15:42.123456Z">'
        "2026-12-03 18:15 UTC</time>"
    )
    assert moment_text(None) == "—" and str(moment_html("not a time")) == "not a time"


def test_people_are_named_and_jobs_say_what_they_do(db: Any) -> None:
    alice = get_user_model().objects.create_user("alice", first_name="Alice", last_name="Martin")
    bob = get_user_model().objects.create_user("bob")
    names = user_names([alice.pk, bob.pk])
    assert person({"actor": "user:alice", "user": alice.pk}, names) == "Alice Martin"
    assert person({"actor": "user:bob", "user": bob.pk}) == "bob"  # no full name: the login
    assert person({"actor": "user:gone", "user": 999}) == "gone"  # deleted since: as recorded
    assert person(
        {"actor": "task:curation.resolution.tasks.resolve_chunk", "source": "task"}
    ) == "resolver (task)"  # fmt: skip
    assert person({"actor": "command:import_records", "source": "import"}) == "import records (import)"
    assert public_person({"actor": "user:alice", "user": alice.pk, "source": "admin"}) == "a curator"
    assert public_person({"actor": "command:resolve", "source": "command"}) == "resolve (command)"


def test_history_recent_changes_and_the_conflict_banner_share_one_format_and_names(
    resolved: Any, alice_martin: Client, bob: Client
) -> None:
    seen = resolved[2].revision
    decide(alice_martin, resolved[2], "link", identifier="2302.00003", reason="the checkpointing paper")

    history = alice_martin.get(f"/admin/curation/observation/{resolved[2].pk}/history/").content.decode()
    assert len(times(history)) >= 3  # one heading per change, and the times among the values
    assert not OTHER_TIMES.search(visible(history)), OTHER_TIMES.search(visible(history))
    assert "— Alice Martin <" in history and "user:alice" not in visible(history)
    assert "test (command)" in history and "test (import)" in history  # jobs by what they are

    page = alice_martin.get(page_url(resolved[2])).content.decode()
    times(page)
    recent = page[page.index("Recent changes") :]
    assert "Alice Martin" in recent and "user:alice" not in recent

    refused = decide(bob, resolved[2], "set_state", revision=seen, status="unresolved", reason="late")
    assert refused.status_code == 409
    banner = refused.content.decode()
    banner = banner[banner.index('id="cr-stale"') :]
    banner = banner[: banner.index("</div>")]
    assert "Alice Martin at <time" in banner and len(times(banner)) == 1


def test_the_public_evidence_page_names_no_staff_member(resolved: Any, alice_martin: Client) -> None:
    decide(alice_martin, resolved[2], "link", identifier="2302.00003", reason="checked")
    body = Client().get(f"/evidence?observation={resolved[2].pk}").content.decode()
    assert "a curator" in body and "test (command)" in body
    assert "alice" not in body.lower() and "Martin" not in body


# --- one name per screen, "Show all" ------------------------------------------------------------


def test_the_work_queue_has_one_name_everywhere(resolved: Any, alice: Client) -> None:
    queue = alice.get("/admin/curation/observation/").content.decode()
    assert "<h1>Work queue</h1>" in queue and "Select observation" not in queue
    assert "<title>Work queue |" in queue
    assert re.search(r'class="breadcrumbs">\s*<a href="/admin/">Home</a> › Work queue</div>', queue)
    index = alice.get("/admin/").content.decode()
    assert ">Work queue</a>" in index and ">Observations</a>" not in index
    page = alice.get(page_url(resolved[1])).content.decode()
    assert 'id="cr-back">Work queue</a>' in page


def test_the_notice_queue_is_called_notices_to_review(nora: Client) -> None:
    queue = nora.get("/admin/notices/noticereview/").content.decode()
    assert "<h1>Notices to review</h1>" in queue and "Select notice review" not in queue
    index = nora.get("/admin/").content.decode()
    assert ">Notices to review</a>" in index and ">Notice reviews</a>" not in index


def test_show_all_keeps_the_curator_on_the_decided_queue(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[1], "set_state", status="parse_uncertain", reason="author fragment")
    body = alice.get("/admin/curation/observation/", {"queue": "decided", "q": "Silent"}).content.decode()
    assert "1 result (" in body
    assert re.search(r'<a href="\?queue=decided" id="cr-show-all"[^>]*>show all “decided by a curator”</a>', body)
    # Without a queue asked for, the default queue is the one it stays on.
    default = alice.get("/admin/curation/observation/", {"q": "Silent"}).content.decode()
    assert 'href="?queue=to_fix" id="cr-show-all"' in default


# --- the change log and the admin index ------------------------------------------------------


def test_one_decision_is_one_change_log_row_named_by_paper_and_reference(
    resolved: Any, alice_martin: Client
) -> None:
    decide(alice_martin, resolved[2], "link", identifier="2302.00003", reason="the checkpointing paper")
    body = alice_martin.get(LOG, {"user": "alice"}).content.decode()
    rows = re.findall(r'<tr class="cr-log-row">(.*?)</tr>', body, flags=re.S)
    assert len(rows) == 1, rows  # reference, resolution, notice and the new cited work: one row
    row = rows[0]
    assert f"{CITING} [2] Checkpointing for fault tolerant deep learning" in row
    assert "Alice Martin" in row and "the checkpointing paper" in row
    assert re.search(r"<b>state</b> metadata_mismatch → verified_exact", row)
    assert "<b>linked paper</b> — → arXiv:2302.00003" in row
    assert len(times(row)) >= 1
    # The filter still takes the actor as history records it.
    assert alice_martin.get(LOG, {"user": "user:alice"}).content.decode().count('class="cr-log-row"') == 1


def test_the_admin_index_lists_recent_decisions_from_history(resolved: Any, alice_martin: Client) -> None:
    empty = alice_martin.get("/admin/").content.decode()
    assert "No decisions yet." in empty and "None available" not in empty
    decide(alice_martin, resolved[2], "link", identifier="2302.00003", reason="the checkpointing paper")
    decide(alice_martin, resolved[1], "set_state", status="parse_uncertain", reason="author fragment")
    index = alice_martin.get("/admin/").content.decode()
    box = index[index.index('id="recent-decisions"') :]
    items = re.findall(r"<li class=\"changelink\">(.*?)</li>", box, flags=re.S)
    assert len(items) == 2 and f"{CITING} [1]" in items[0] and f"{CITING} [2]" in items[1]
    assert all("Alice Martin" in i and len(times(i)) == 1 for i in items)
    assert "Recent actions" not in index and "None available" not in index


# --- the notice review ------------------------------------------------------------------------


@pytest.fixture
def concern(crossref: FakeCrossref, groups: None) -> Any:  # noqa: F811
    """Return the open review of an expression of concern about a cited work."""
    import_citing_record(dois=[MICPRO])
    _refresh_micpro(crossref)
    return _review(CONCERN)


def review_url(review: Any) -> str:
    return f"/admin/notices/noticereview/{review.pk}/change/"


def test_keeping_the_current_decision_says_nothing_changed(concern: Any) -> None:
    from curation.notices.services import review_decide

    rita, nora = make_user("rita", NOTICE_REVIEWERS), make_user("nora", NOTICE_REVIEWERS)
    client = Client()
    client.force_login(nora)
    seen = concern.revision
    review_decide(
        review_id=concern.pk, decision="dismissed", note="another paper", expected_revision=seen,
        actor=Actor.for_user(rita, ChangeSource.ADMIN),
    )  # fmt: skip
    stale = {"decision": "confirmed", "decision_note": "Nora: it is this one", "revision": seen}
    refused = client.post(review_url(concern), stale)
    assert refused.status_code == 409  # as the observation page answers a stale save
    body = refused.content.decode()
    assert 'id="review-conflict"' in body and "rita made it dismissed at <time" in body
    shown = re.search(r'name="conflict_revision" value="(\d+)"', body)
    assert shown
    kept = client.post(
        review_url(concern), {**stale, "conflict_revision": shown.group(1), "on_conflict": "current"}, follow=True
    )
    text = kept.content.decode()
    assert kept.status_code == 200 and "changed successfully" not in text
    assert "Nothing changed: the current decision (dismissed as a false match, revision 2) was kept" in text
    assert _review(CONCERN).note == "another paper"


def test_the_review_page_writes_times_and_people_as_every_curator_screen(concern: Any) -> None:
    from curation.notices.services import review_decide

    rita = make_user("rita", NOTICE_REVIEWERS)
    get_user_model().objects.filter(pk=rita.pk).update(first_name="Rita", last_name="Okafor")
    review_decide(
        review_id=concern.pk, decision="dismissed", note="another paper",
        expected_revision=concern.revision, actor=Actor.for_user(rita, ChangeSource.ADMIN),
    )  # fmt: skip
    client = Client()
    client.force_login(rita)
    body = client.get(review_url(concern)).content.decode()
    assert len(times(body)) >= 3  # first seen, last seen, and each decision so far
    history = body[body.index('id="review-history"') :]
    assert "Rita Okafor" in history and "user:rita" not in history
    assert not OTHER_TIMES.search(visible(body))


def test_times_are_utc_whatever_the_offset_given() -> None:
    assert moment_text(datetime(2026, 12, 31, 23, 59, tzinfo=UTC)) == "2026-12-31 23:59 UTC"
