"""ListRecords (arXivRaw) through oaipmh-scythe: pages, tokens, deletions, Retry-After."""

from __future__ import annotations

from datetime import date

import httpx2
import pytest

from curation.clients.arxiv import (
    ArxivError,
    ArxivMetadata,
    ArxivOffline,
    ArxivUnavailable,
    DeletedRecord,
    ResumptionPoint,
)
from tests.clients.arxiv.fake_arxiv import FakeArxiv

IDS = ["2401.00001", "2401.00002", "hep-th/9901001", "2401.00004", "2401.00005"]


def five_records(fake: FakeArxiv) -> None:
    """Five records over three pages of two: one of them deleted."""
    for arxiv_id in IDS:
        if arxiv_id == "2401.00004":
            fake.add_deleted(arxiv_id, datestamp=date(2024, 1, 4))
        else:
            fake.add_record(arxiv_id, categories="cs.LG", datestamp=date(2024, 1, 3), versions=2)


def test_harvest_follows_resumption_tokens_across_three_pages(fake_arxiv: FakeArxiv) -> None:
    five_records(fake_arxiv)
    items = list(fake_arxiv.client().harvest(from_date=date(2024, 1, 1)))
    points = [item for item in items if isinstance(item, ResumptionPoint)]
    assert [type(item).__name__ for item in items] == [
        "ArxivMetadata", "ArxivMetadata", "ResumptionPoint",
        "ArxivMetadata", "DeletedRecord", "ResumptionPoint",
        "ArxivMetadata", "ResumptionPoint",
    ]  # fmt: skip
    assert [item.arxiv_id for item in items if not isinstance(item, ResumptionPoint)] == IDS
    assert [(p.cursor, p.complete_list_size) for p in points] == [(0, 5), (2, 5), (4, 5)]
    assert points[0].token and points[1].token and points[2].token is None
    first, *following = fake_arxiv.requests("oai")
    assert dict(first.args) == {
        "verb": "ListRecords",
        "metadataPrefix": "arXivRaw",
        "from": "2024-01-01",
    }
    # Follow-up pages carry the token alone, as OAI-PMH requires.
    assert [dict(r.args) for r in following] == [
        {"verb": "ListRecords", "resumptionToken": points[0].token},
        {"verb": "ListRecords", "resumptionToken": points[1].token},
    ]


def test_harvest_streams_page_by_page(fake_arxiv: FakeArxiv) -> None:
    five_records(fake_arxiv)
    items = fake_arxiv.client().harvest(from_date=None)
    assert isinstance(next(items), ArxivMetadata)
    assert fake_arxiv.count("oai") == 1  # nothing is fetched before it is asked for
    for item in items:
        if isinstance(item, ResumptionPoint):
            break
    assert fake_arxiv.count("oai") == 1


def test_harvest_resumes_from_a_stored_token(fake_arxiv: FakeArxiv) -> None:
    five_records(fake_arxiv)
    client = fake_arxiv.client()
    token = next(i for i in client.harvest(from_date=None) if isinstance(i, ResumptionPoint)).token
    resumed = list(
        client.harvest(from_date=date(2024, 1, 1), set_spec="cs", resumption_token=token)
    )
    assert [i.arxiv_id for i in resumed if not isinstance(i, ResumptionPoint)] == IDS[2:]
    assert dict(fake_arxiv.requests("oai")[1].args) == {
        "verb": "ListRecords",
        "resumptionToken": token,
    }


def test_harvest_passes_dates_and_set(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_record("2401.00001", categories="cs.LG", datestamp=date(2024, 1, 3))
    fake_arxiv.add_record("2401.00002", categories="math.AG", datestamp=date(2024, 1, 3))
    fake_arxiv.add_record("2401.00003", categories="cs.CL", datestamp=date(2024, 2, 1))
    items = list(
        fake_arxiv.client().harvest(
            from_date=date(2024, 1, 1), until=date(2024, 1, 31), set_spec="cs"
        )
    )
    assert [i.arxiv_id for i in items if isinstance(i, ArxivMetadata)] == ["2401.00001"]
    assert items[-1] == ResumptionPoint(None, None, None)  # one page: no token element at all
    assert dict(fake_arxiv.requests("oai")[0].args) == {
        "verb": "ListRecords", "metadataPrefix": "arXivRaw",
        "from": "2024-01-01", "until": "2024-01-31", "set": "cs",
    }  # fmt: skip


def test_deleted_records_come_as_deleted_records(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_deleted("cond-mat/0102536", datestamp=date(2024, 1, 5))
    items = list(fake_arxiv.client().harvest(from_date=None))
    assert items[0] == DeletedRecord("cond-mat/0102536", date(2024, 1, 5))


def test_no_records_match_is_an_empty_harvest(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_record("2401.00001", datestamp=date(2024, 1, 3))
    assert list(fake_arxiv.client().harvest(from_date=date(2025, 1, 1))) == []
    assert fake_arxiv.count("oai") == 1


def test_a_token_arxiv_no_longer_knows_is_an_error_naming_it(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_record("2401.00001")
    with pytest.raises(ArxivError, match="resumption token '123|1001'"):
        list(fake_arxiv.client().harvest(from_date=None, resumption_token="123|1001"))


def test_503_with_retry_after_makes_everyone_wait_that_long(fake_arxiv: FakeArxiv) -> None:
    five_records(fake_arxiv)
    fake_arxiv.fail_next(503, retry_after="7")
    client = fake_arxiv.client()
    items = list(client.harvest(from_date=None))
    assert len([i for i in items if not isinstance(i, ResumptionPoint)]) == 5
    assert fake_arxiv.clock.sleeps == [7.0]  # the wait arXiv asked for, no backoff on top
    assert fake_arxiv.count("oai") == 4  # the refused request, then three pages


def test_a_retry_after_past_the_cap_gives_up_and_blocks_the_throttle(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_record("2401.00001")
    fake_arxiv.fail_next(503, retry_after="3600")
    client = fake_arxiv.client(max_retry_after=600)
    with pytest.raises(ArxivUnavailable, match="Retry-After 3600s"):
        list(client.harvest(from_date=None))
    assert fake_arxiv.count("oai") == 1
    client.throttle.wait()  # the next request of any worker waits out arXiv's hour
    assert fake_arxiv.clock.sleeps == [3600.0]


def test_5xx_without_retry_after_backs_off_then_gives_up(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_record("2401.00001")
    fake_arxiv.fail_next(500, times=3)
    with pytest.raises(ArxivUnavailable, match="gave up after 3 tries .HTTP 500"):
        list(fake_arxiv.client(max_retries=2, backoff=1.0).harvest(from_date=None))
    assert fake_arxiv.count("oai") == 3
    assert len(fake_arxiv.clock.sleeps) == 2
    assert 0.5 <= fake_arxiv.clock.sleeps[0] <= 1.0 and 1.0 <= fake_arxiv.clock.sleeps[1] <= 2.0


def test_a_timeout_is_retried(fake_arxiv: FakeArxiv) -> None:
    calls: list[str] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        calls.append(str(request.url))
        if len(calls) == 1:
            raise httpx2.ReadTimeout("slow", request=request)
        return httpx2.Response(200, text='<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">'
                               '<error code="noRecordsMatch">none</error></OAI-PMH>')  # fmt: skip

    client = fake_arxiv.client(transport=httpx2.MockTransport(answer))
    assert list(client.harvest(from_date=None)) == []
    assert len(calls) == 2


def test_a_page_cut_short_stops_the_harvest_instead_of_ending_it(fake_arxiv: FakeArxiv) -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, text='<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">'
                               "<ListRecords><record><header><identifier>oai:arXiv.org:2401")  # fmt: skip

    client = fake_arxiv.client(transport=httpx2.MockTransport(answer))
    with pytest.raises(ArxivUnavailable, match="not well-formed XML"):
        list(client.harvest(from_date=None))


def test_offline_harvest_sends_nothing(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_record("2401.00001")
    with pytest.raises(ArxivOffline):
        next(fake_arxiv.client(offline=True).harvest(from_date=None))
    assert fake_arxiv.count() == 0


@pytest.mark.parametrize(
    ("status", "body", "error", "message"),
    [
        (200, "Down for maintenance", ArxivUnavailable, "not well-formed XML"),
        (404, "Not Found", ArxivError, "HTTP 404"),
    ],
)
def test_an_answer_that_is_not_oai_pmh_is_an_arxiv_error(
    fake_arxiv: FakeArxiv, status: int, body: str, error: type[Exception], message: str
) -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, text=body)

    client = fake_arxiv.client(transport=httpx2.MockTransport(answer))
    with pytest.raises(error, match=message):
        list(client.harvest(from_date=None))
    with pytest.raises(error, match=message):
        client.metadata("2401.00001")
