"""Cached list pages (api/page_cache.py): weak ETags and 304s, and never a stale row.

Every public list is cached under a marker of what its page shows; these tests change one row
of a page in each way a row can change (its own column, a joined row, an annotation, membership)
and check that the very next read shows it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from api.serializers.timestamps import timestamp
from curation.audit import Actor, audited
from curation.models import CitedWork, Observation, Paper
from curation.notices.models import NoticeEvent, NoticeReview
from curation.services.observations import observation_mark_no_canonical_record

pytestmark = pytest.mark.django_db

PAPER = "2412.14374"
CITED = "1604.06174"  # cited by the sample record (an outbound observation points at it)
SINCE = "2000-01-01T00:00:00Z"

LISTS = {
    "observations of a paper": ("/api/v1/observations", {"paper": PAPER}),
    "observations citing a paper": ("/api/v1/observations", {"cited_paper": CITED}),
    "observations": ("/api/v1/observations", {}),
    "papers": ("/api/v1/papers", {}),
    "notice events": ("/api/v1/notice-events", {}),
    "records feed": ("/api/v1/records", {"changed_since": SINCE}),
    "cited works": ("/api/v1/cited-works", {}),
}


def _write(reason: str = "test change") -> Any:
    return audited(Actor.command("test"), reason)


def _event(work: CitedWork, kind: str = "retraction") -> NoticeEvent:
    now = timezone.now()
    with _write("fixture"):
        return NoticeEvent.objects.create(
            work=work, source="crossref", identity=f"10.1/{kind}", type=kind, severity=0,
            date=date(2024, 5, 1), first_seen_at=now, last_seen_at=now,
        )  # fmt: skip


@pytest.fixture
def lists(sample: dict[str, Any]) -> None:
    """The sample record, and two notice events about a work it cites."""
    work = CitedWork.objects.get(arxiv_id=CITED)
    _event(work)
    _event(work, "correction")


def _read(client: APIClient, name: str, **headers: str) -> Any:
    path, params = LISTS[name]
    return client.get(path, params, **headers)


@pytest.mark.parametrize("name", list(LISTS))
def test_a_list_page_answers_304_on_its_etag(anon: APIClient, lists: None, name: str) -> None:
    first = _read(anon, name)
    assert first.status_code == 200 and first.json()["results"], first.content
    etag = first["ETag"]
    assert etag.startswith('W/"') and first["Cache-Control"] == "public, max-age=30"

    again = _read(anon, name)  # answered from the cache, before DRF
    not_modified = _read(anon, name, HTTP_IF_NONE_MATCH=etag)
    other = _read(anon, name, HTTP_IF_NONE_MATCH='W/"something-else"')

    assert again.status_code == 200 and again.content == first.content and again["ETag"] == etag
    assert not_modified.status_code == 304 and not_modified.content == b""
    assert not_modified["ETag"] == etag
    assert other.status_code == 200 and other.content == first.content


def _first_observation(name: str) -> Observation:
    rows = Observation.objects.filter(retired_at__isnull=True)
    if name == "observations citing a paper":
        rows = rows.filter(cited_paper__arxiv_id=CITED)
    return rows.order_by("paper_id", "reference_index", "id").first()  # type: ignore[return-value]


def _pin(name: str) -> Callable[[dict[str, Any]], bool]:
    """Pin the first observation of the list; return how to see it on the page."""
    observation = _first_observation(name)
    with _write():
        Observation.objects.filter(pk=observation.pk).update(pinned=True)
    return lambda page: page["results"][0]["pinned"] is True


def _resolve(name: str) -> Callable[[dict[str, Any]], bool]:
    """Change the state of the first observation's resolution (a joined row)."""
    observation = _first_observation(name)
    with _write():
        observation.resolution.status = "parse_uncertain"
        observation.resolution.save()
    return lambda page: page["results"][0]["resolution"]["status"] == "parse_uncertain"


def _rename_authors(name: str) -> Callable[[dict[str, Any]], bool]:
    """Change a paper's authors: shown in the paper list, in no record (no version bump)."""
    paper = Paper.objects.order_by("arxiv_id").first()
    assert paper is not None
    with _write():
        Paper.objects.filter(pk=paper.pk).update(authors="A. Newname")
    return lambda page: page["results"][0]["authors"] == "A. Newname"


def _review(name: str) -> Callable[[dict[str, Any]], bool]:
    """Dismiss the first notice event (its review is a joined row)."""
    event = NoticeEvent.objects.order_by("id").first()
    with _write():
        NoticeReview.objects.create(
            event=event, status="dismissed", severity=0, opened_at=timezone.now()
        )
    return lambda page: page["results"][0]["review_state"] == "dismissed"


def _touch(name: str) -> Callable[[dict[str, Any]], bool]:
    """Change an observation of the sample paper (no cited paper): its record is now the latest."""
    observation = Observation.objects.filter(paper__arxiv_id=PAPER, cited_paper=None).first()
    assert observation is not None
    now = timezone.now()
    with _write():
        Observation.objects.filter(pk=observation.pk).update(changed_at=now)
    latest = {"arxiv_id": PAPER, "changed_at": timestamp(now), "record": f"/api/v1/records/{PAPER}"}
    return lambda page: page["results"][-1] == latest


def _retire_citations(name: str) -> Callable[[dict[str, Any]], bool]:
    """Retire the observations citing a work (an annotation: its citing count)."""
    work = CitedWork.objects.get(arxiv_id=CITED)
    assert Observation.objects.filter(cited_work=work).exists()
    with _write():
        Observation.objects.filter(cited_work=work).update(retired_at=timezone.now())
    return lambda page: any(
        row["id"] == work.pk and row["citing_observations"] == 0 for row in page["results"]
    )


CHANGES = [
    ("observations of a paper", _pin),
    ("observations of a paper", _resolve),
    ("observations citing a paper", _pin),
    ("observations citing a paper", _resolve),
    ("observations", _pin),
    ("observations", _resolve),
    ("papers", _rename_authors),
    ("notice events", _review),
    ("records feed", _touch),
    ("cited works", _retire_citations),
]


@pytest.mark.parametrize(("name", "change"), CHANGES, ids=[f"{n}-{c.__name__}" for n, c in CHANGES])
def test_a_change_to_any_row_on_the_page_changes_the_page(
    anon: APIClient, lists: None, name: str, change: Callable[[str], Callable[[Any], bool]]
) -> None:
    before = _read(anon, name)
    assert _read(anon, name).content == before.content  # cached now, in process and shared

    shows_change = change(name)
    after = _read(anon, name)
    revalidated = _read(anon, name, HTTP_IF_NONE_MATCH=before["ETag"])

    assert after.status_code == 200 and shows_change(after.json()), after.json()["results"][:1]
    assert after["ETag"] != before["ETag"]
    assert revalidated.status_code == 200 and revalidated.content == after.content


def test_a_new_row_on_the_page_changes_the_page(anon: APIClient, lists: None) -> None:
    before = _read(anon, "notice events").json()["results"]

    _event(CitedWork.objects.get(arxiv_id=CITED), "expression_of_concern")

    after = _read(anon, "notice events").json()["results"]
    assert len(after) == len(before) + 1


def test_a_repeated_anonymous_read_costs_its_marker_only(anon: APIClient, lists: None) -> None:
    for name in ("observations of a paper", "papers"):
        first = _read(anon, name)
        with CaptureQueriesContext(connection) as queries:
            again = _read(anon, name)

        assert again.content == first.content
        assert len(queries) == 1, [q["sql"] for q in queries]
        marker = queries[0]["sql"]
        expected = "record_recordversion" if name.startswith("observations") else "sha256("
        assert expected in marker, marker


def test_next_links_name_the_host_asked(anon: APIClient, lists: None) -> None:
    params = {"paper": PAPER, "page_size": 2}
    here = anon.get("/api/v1/observations", params).json()["next"]
    there = anon.get("/api/v1/observations", params, HTTP_HOST="localhost").json()["next"]

    assert here.startswith("http://testserver/") and there.startswith("http://localhost/")


def test_a_private_list_is_never_answered_to_anonymous_clients(
    anon: APIClient, reader: APIClient, lists: None
) -> None:
    url = f"/api/v1/history/papers/{PAPER}"
    assert reader.get(url).status_code == reader.get(url).status_code == 200

    assert anon.get(url).status_code == 401


def test_the_browsable_api_still_answers_browsers(anon: APIClient, lists: None) -> None:
    """DEBUG (as in tests) keeps the browsable API; a cached JSON page does not replace it."""
    assert _read(anon, "papers").status_code == 200
    html = _read(anon, "papers", HTTP_ACCEPT="text/html")

    assert html.status_code == 200 and html["Content-Type"].startswith("text/html")


@pytest.mark.django_db(transaction=True)
def test_digest_and_rows_are_read_from_one_snapshot(sample_record_path: Any) -> None:
    """A commit between the digest and the rows must not pair new rows with the old digest."""
    import io

    from django.core.management import call_command

    from api.page_cache import RowsMarker, same_snapshot

    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    page = Paper.objects.order_by("arxiv_id")[:3]
    marker = RowsMarker.of(page)
    first = Paper.objects.order_by("arxiv_id").first()
    assert first is not None

    def commit_elsewhere() -> None:  # a thread has its own connection, in autocommit
        try:
            with _write():
                Paper.objects.filter(pk=first.pk).update(authors="Z. Elsewhere")
        finally:
            connections.close_all()

    with same_snapshot(marker):
        digest = marker.read()
        writer = threading.Thread(target=commit_elsewhere)
        writer.start()
        writer.join()
        authors = [p.authors for p in page]
        assert marker.read() == digest

    assert "Z. Elsewhere" not in authors
    assert marker.read() != digest  # outside the snapshot the change shows


def test_the_feed_lists_both_records_of_a_changed_observation(anon: APIClient, lists: None) -> None:
    """The feed's filter (an observation changed since) names the citing and the cited record."""
    observation = Observation.objects.get(paper__arxiv_id=PAPER, cited_paper__arxiv_id=CITED)
    later = timezone.now() + timedelta(days=1)
    with _write():
        Observation.objects.filter(pk=observation.pk).update(changed_at=later)

    feed = anon.get("/api/v1/records", {"changed_since": timestamp(later)}).json()["results"]

    assert [(r["arxiv_id"], r["changed_at"]) for r in feed] == [
        (CITED, timestamp(later)),
        (PAPER, timestamp(later)),
    ]


def test_an_empty_changed_since_lists_only_papers_with_observations(
    anon: APIClient, lists: None
) -> None:
    now = timezone.now()
    Paper.objects.create(arxiv_id="2601.00001", title="Nobody cites me", submitted_at=now)

    listed = {
        r["arxiv_id"] for r in anon.get("/api/v1/records", {"changed_since": ""}).json()["results"]
    }

    assert PAPER in listed and "2601.00001" not in listed


def test_the_feed_finds_changed_records_by_key_not_by_reading_the_catalogue(
    anon: APIClient, lists: None
) -> None:
    """A day of changes is looked up by paper key: the catalogue (millions of papers in
    production) is not read row by row, as it was when two `IN` lists were joined by OR."""
    now = timezone.now()
    Paper.objects.bulk_create(
        Paper(arxiv_id=f"2602.{n:05d}", title=f"Catalogue paper {n}", submitted_at=now)
        for n in range(5_000)
    )
    later = now + timedelta(days=1)
    observation = Observation.objects.get(paper__arxiv_id=PAPER, cited_paper__arxiv_id=CITED)
    with _write():
        Observation.objects.filter(pk=observation.pk).update(changed_at=later)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE curation_paper; ANALYZE curation_observation")

    with CaptureQueriesContext(connection) as captured:
        feed = anon.get("/api/v1/records", {"changed_since": timestamp(later)}).json()["results"]
    assert [r["arxiv_id"] for r in feed] == [CITED, PAPER]
    (statement,) = [
        q["sql"] for q in captured.captured_queries if q["sql"].startswith('SELECT "curation_paper"')
    ]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + statement)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Seq Scan on curation_paper" not in plan, plan


def test_a_reference_unlinked_from_a_paper_puts_that_paper_in_the_feed(
    anon: APIClient, lists: None
) -> None:
    """The cited paper's record loses an inbound citation: it changed, although no observation
    points at it any more (the feed computed from today's links missed it)."""
    observation = Observation.objects.get(paper__arxiv_id=PAPER, cited_paper__arxiv_id=CITED)
    before = timezone.now()

    observation_mark_no_canonical_record(
        observation=observation,
        expected_revision=observation.revision,
        actor=Actor.command("test"),
        reason="a web page, not the paper",
    )

    feed = anon.get("/api/v1/records", {"changed_since": timestamp(before)}).json()["results"]
    assert {r["arxiv_id"] for r in feed} == {CITED, PAPER}


def test_a_record_change_time_never_moves_back(anon: APIClient, lists: None) -> None:
    observation = Observation.objects.get(paper__arxiv_id=PAPER, cited_paper__arxiv_id=CITED)
    later = timezone.now() + timedelta(days=1)
    with _write():
        Observation.objects.filter(pk=observation.pk).update(changed_at=later)
        Observation.objects.filter(pk=observation.pk).update(changed_at=later - timedelta(days=3))

    feed = anon.get("/api/v1/records", {"changed_since": timestamp(later)}).json()["results"]

    assert [(r["arxiv_id"], r["changed_at"]) for r in feed] == [
        (CITED, timestamp(later)),
        (PAPER, timestamp(later)),
    ]


def test_the_feed_reads_stored_change_times_not_every_changed_observation(
    anon: APIClient, lists: None
) -> None:
    """A page of the feed is read from the stored change times in their index order: its cost
    does not follow how many records a day of changes touched (bench/README-scale.md)."""
    later = timezone.now() + timedelta(days=1)
    with _write():
        Observation.objects.filter(paper__arxiv_id=PAPER).update(changed_at=later)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE curation_observation; ANALYZE record_recordchange")

    with CaptureQueriesContext(connection) as captured:
        feed = anon.get("/api/v1/records", {"changed_since": timestamp(later)}).json()["results"]
    assert feed
    (statement,) = [
        q["sql"] for q in captured.captured_queries if q["sql"].startswith('SELECT "curation_paper"')
    ]
    assert "curation_observation" not in statement
    assert "record_recordchange" in statement
