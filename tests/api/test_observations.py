"""Observations: filters, keyset cursors, evidence, tombstones, strict parameters."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from curation.audit import Actor, audited
from curation.models import Observation
from curation.references import read_references
from curation.services import reference_list_import

pytestmark = pytest.mark.django_db

URL = "/api/v1/observations"


def _all(client: APIClient, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Follow next_cursor to the end and return every row."""
    rows: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = client.get(URL, {**params, **({"cursor": cursor} if cursor else {})}).json()
        rows += page["results"]
        cursor = page["next_cursor"]
        if cursor is None:
            return rows


def test_cursor_reads_past_the_record_cap_in_reference_order(
    anon: APIClient, big_record: str
) -> None:
    rows = _all(anon, {"paper": big_record, "page_size": 40})

    assert [r["reference_index"] for r in rows] == list(range(1, 151))
    assert len({r["id"] for r in rows}) == 150


def test_each_observation_carries_its_resolution_and_notice(
    anon: APIClient, sample: dict[str, Any]
) -> None:
    first = anon.get(URL, {"paper": "2412.14374", "page_size": 1}).json()["results"][0]

    assert first["resolution"]["evidence"] == {} and first["resolution"]["origin"] == "imported"
    assert first["standing_notice"]["state"] in {"measured", "unavailable"}
    assert first["work"]["described"] is True
    detail = anon.get(first["links"]["self"])
    assert detail.status_code == 200 and detail.json() == first
    assert detail["ETag"].startswith('W/"sha256:')
    assert anon.get(first["links"]["self"], HTTP_IF_NONE_MATCH=detail["ETag"]).status_code == 304


def test_an_observation_read_from_a_list_carries_its_cite_key(
    anon: APIClient, sample: dict[str, Any]
) -> None:
    bib = b"@article{vaswani17, title={Attention is all you need}, year={2017}}\n@misc{nokey-less, title={A note on lists}}"
    listed = list(read_references(bib, "bib"))
    reference_list_import(arxiv_id="2501.00090", references=listed, actor=Actor.importer("t"), reason="t")

    rows = anon.get(URL, {"paper": "2501.00090"}).json()["results"]
    assert [r["cite_key"] for r in rows] == ["vaswani17", "nokey-less"]
    detail = anon.get(rows[0]["links"]["self"]).json()
    assert detail["cite_key"] == "vaswani17"
    imported = anon.get(URL, {"paper": "2412.14374", "page_size": 1}).json()["results"][0]
    assert imported["cite_key"] is None  # a record's observation: no list, no key


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"state": "unresolved"}, 20),
        ({"state": "verified_fuzzy"}, None),
        ({"resolver_source": "raw_fallback"}, None),
        ({"pinned": "false"}, 33),
        ({"pinned": "true"}, 0),
        ({"has_notice": "true"}, 0),
        ({"has_notice": "false"}, 33),
    ],
)
def test_filters(
    anon: APIClient, sample: dict[str, Any], params: dict[str, str], expected: int | None
) -> None:
    rows = _all(anon, {"paper": "2412.14374", **params})

    if expected is None:  # count what the sample says
        key, value = next(iter(params.items()))
        field = "status" if key == "state" else key
        expected = sum(1 for o in sample["outbound"] if o["resolution"][field] == value)
    assert len(rows) == expected


@pytest.mark.parametrize(
    "params",
    [
        {"colour": "red"},
        {"state": "verified"},
        {"pinned": "maybe"},
        {"changed_since": "last week"},
        {"cursor": "not-a-cursor"},
        {"cursor": "WzEsMl0="},  # a list of the wrong length
        {"cursor": "WyJ4IiwieSIsInoiXQ=="},  # the right length, values of the wrong type
        {"page_size": "100000"},
        {"paper": "x" * 300},
        {"ordering": "random"},
    ],
)
def test_bad_parameters_are_400(
    anon: APIClient, sample: dict[str, Any], params: dict[str, str]
) -> None:
    response = anon.get(URL, params)

    assert response.status_code == 400, response.content
    assert response.json()["error"]["status"] == 400


def test_changed_since_includes_retired_observations_as_tombstones(
    anon: APIClient, sample: dict[str, Any]
) -> None:
    before = timezone.now()
    junk = Observation.objects.get(work_title="write newline")
    with audited(Actor.command("test"), "BibTeX artefact"):
        junk.retired_at = junk.changed_at = timezone.now()
        junk.revision += 1
        junk.save()

    live = _all(anon, {"paper": "2412.14374"})
    changed = _all(anon, {"changed_since": before.isoformat()})

    assert str(junk.pk) not in {r["id"] for r in live}
    assert [(r["id"], r["retired"]) for r in changed] == [(str(junk.pk), True)]


def test_deleted_observations_are_listed_from_history(
    anon: APIClient, sample: dict[str, Any]
) -> None:
    junk = Observation.objects.get(work_title="write newline")
    junk_id, index = str(junk.pk), junk.reference_index
    with audited(Actor.command("test"), "delete junk"):
        junk.delete()

    # History times are transaction times: in a test, the start of the test.
    rows = anon.get(f"{URL}/deleted", {"changed_since": "2020-01-01T00:00:00Z"}).json()["results"]

    assert rows == [
        {
            "id": junk_id,
            "paper": "2412.14374",
            "reference_index": index,
            "deleted_at": rows[0]["deleted_at"],
            "deleted": True,
        }
    ]
