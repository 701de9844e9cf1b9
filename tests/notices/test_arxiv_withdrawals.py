"""Tests for detecting withdrawn arXiv papers in snapshot records."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from curation.notice_events import EventType
from curation.notices.parsers.arxiv_withdrawals import is_withdrawal_comment, withdrawal_event

from .conftest import FIXTURES


def _snapshot() -> dict[str, dict[str, Any]]:
    lines = (FIXTURES / "arxiv_snapshot_sample.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["id"]: record for record in map(json.loads, lines)}


@pytest.mark.parametrize(
    "comment",
    [
        "This paper has been withdrawn",
        "This paper has been withdrawn by the author due to a crucial error in equation 3",
        "this paper has been withdrawn by the authors.",
        "THIS PAPER HAS BEEN WITHDRAWN BY THE AUTHOR",
        "The paper has been withdrawn",
        "This submission has been withdrawn by arXiv administrators due to text reuse",
        "This manuscript has been withdrawn from arXiv",
        "withdrawn by the author",
        "Withdrawn by the authors; a corrected version will appear elsewhere",
        "paper withdrawn",
        "Paper withdrawn.",
        "Withdrawn",
        "withdrawn due to an error in Lemma 2",
        "Withdrawn: the main result is wrong",
        "12 pages, 3 figures. This paper has been withdrawn",
        "This paper is withdrawn because of a gap in the proof",
        "This version has been\n  withdrawn by the author",
    ],
)
def test_withdrawal_comments(comment: str) -> None:
    assert is_withdrawal_comment(comment)


@pytest.mark.parametrize(
    "comment",
    [
        "Withdrawn version superseded by arXiv:1912.01234",
        "withdrawn version superseded by the published one",
        "This supersedes arXiv:0801.1234, which has been withdrawn",
        "Replaces the withdrawn paper hep-th/0101001",
        "An earlier version of this paper was withdrawn from ICML 2019",
        "A previous version has been withdrawn; this is a new analysis",
        "We discuss withdrawn drugs and their side effects",
        "This paper was withdrawn from the conference proceedings and extended",
        "20 pages, harvmac, v2: section on AdS2 corrected",
        "",
        None,
    ],
)
def test_near_misses_are_not_withdrawals(comment: str | None) -> None:
    assert not is_withdrawal_comment(comment)


def test_withdrawal_event_from_the_comment() -> None:
    event = withdrawal_event(_snapshot()["0704.0046"])
    assert event is not None
    assert event.type is EventType.WITHDRAWAL
    assert event.source == "arxiv"
    assert event.work_arxiv_id == "0704.0046" and event.work_doi is None
    assert event.date == date(2007, 7, 10)  # the latest version's date
    assert event.to_v1() == {
        "date": "2007-07-10",
        "notice_doi": None,
        "notice_url": "https://arxiv.org/abs/0704.0046v2",
        "reasons": [
            "This paper has been withdrawn by the author due to a crucial error in equation 3"
        ],
        "source": "arxiv",
        "source_record_id": "0704.0046v2",
        "type": "withdrawal",
    }


def test_withdrawal_event_from_a_withdrawn_latest_version() -> None:
    event = withdrawal_event(_snapshot()["2101.00002"])
    assert event is not None
    # v10 is later than v2 although it sorts before it as text.
    assert event.source_record_id == "2101.00002v10"
    assert event.date == date(2021, 3, 3)
    assert event.reasons == ()


@pytest.mark.parametrize("arxiv_id", ["hep-th/9711200", "1911.00001"])
def test_no_event_for_papers_that_are_not_withdrawn(arxiv_id: str) -> None:
    assert withdrawal_event(_snapshot()[arxiv_id]) is None


def test_a_withdrawn_earlier_version_is_not_a_withdrawal() -> None:
    record = {
        "id": "2101.00003",
        "comments": None,
        "versions": [
            {"version": "v1", "created": "Fri, 1 Jan 2021 10:00:00 GMT", "withdrawn": True},
            {"version": "v2", "created": "Sat, 2 Jan 2021 10:00:00 GMT"},
        ],
    }
    assert withdrawal_event(record) is None


@pytest.mark.parametrize(
    "record",
    [
        {"id": "2101.00004", "comments": "Withdrawn", "versions": None},
        {"id": "2101.00004", "comments": "Withdrawn", "versions": [{"version": "v1"}]},
        {
            "id": "2101.00004",
            "comments": "Withdrawn",
            "versions": [{"version": "v1", "created": "not a date"}],
        },
    ],
)
def test_withdrawal_without_a_usable_version_date(record: dict[str, Any]) -> None:
    event = withdrawal_event(record)
    assert event is not None and event.date is None


def test_a_record_without_an_id_gives_nothing() -> None:
    assert withdrawal_event({"comments": "This paper has been withdrawn"}) is None
