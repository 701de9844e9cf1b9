"""GET /api/v1/resolver/precision: the resolver measured by its curators (issue 41 item 3)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from curation.services.link_samples import link_sample_draw, sampled_link_confirm
from curation.services.observations import observation_set_state
from curation.states import ResolutionStatus
from tests.resolution.verdicts_data import ALICE, fresh, verdict

pytestmark = pytest.mark.django_db
URL = "/api/v1/resolver/precision"


def test_with_no_label_every_figure_is_empty(anon: APIClient) -> None:
    body = anon.get(URL).json()
    assert body["overall"]["sampled_stratified"] == {
        "checked": 0, "overturned": 0, "precision": None, "low": None, "high": None,
    }  # fmt: skip
    assert body["by_step_state"] == [] and body["by_band"] == [] and body["sample"] is None


def test_answers_sampled_and_queue_figures_apart(anon: APIClient) -> None:
    links = [verdict(i, probability=0.995) for i in range(3)] + [verdict(3, probability=0.6)]
    sample = link_sample_draw(per_band=5, seed="api", actor=ALICE, reason="check")
    items = list(sample.items.order_by("position"))
    assert len(items) == 4
    for item in items:
        o = fresh(item.observation)
        if item.band == "0.50–0.80":
            observation_set_state(observation=o, status=ResolutionStatus.UNRESOLVED,
                                  expected_revision=o.revision, actor=ALICE, reason="wrong")  # fmt: skip
        else:
            sampled_link_confirm(item=item, expected_revision=o.revision, actor=ALICE)
    queued = verdict(9, step="identifier", probability=None)
    observation_set_state(observation=queued, status=ResolutionStatus.UNRESOLVED,
                          expected_revision=queued.revision, actor=ALICE, reason="wrong")  # fmt: skip
    assert links

    response = anon.get(URL)
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    overall = body["overall"]
    # Stratified: 3/4 of the links (top band) all right, 1/4 (middle band) wrong = 0.75.
    assert overall["sampled_stratified"]["precision"] == 0.75
    assert overall["sampled_checked"] | {"low": None, "high": None} == {
        "checked": 4, "overturned": 1, "precision": 0.75, "low": None, "high": None,
    }  # fmt: skip
    assert overall["came_to_curators"]["checked"] == 1
    assert overall["came_to_curators"]["precision"] == 0.0
    assert {(r["why"], r["step"], r["state"], r["checked"], r["overturned"])
            for r in body["by_step_state"]} == {
        ("sampled", "string", "verified_fuzzy", 4, 1),
        ("queue", "identifier", "verified_fuzzy", 1, 1),
    }  # fmt: skip
    assert [(r["why"], r["band"], r["checked"]) for r in body["by_band"]] == [
        ("queue", "no probability (identifier)", 1),
        ("sampled", "0.50–0.80", 1),
        ("sampled", "0.99–1.00", 3),
    ]
    top = next(r for r in body["by_band"] if r["band"] == "0.99–1.00")
    assert top["precision"] == 1.0 and 0.43 < top["low"] < 0.44 and top["high"] == 1.0
    assert body["sample"]["seed"] == "api"
    assert body["sample"]["strata"] == [
        {"band": "0.50–0.80", "links": 1, "checked": 1, "overturned": 1},
        {"band": "0.99–1.00", "links": 3, "checked": 3, "overturned": 0},
    ]

    # A weak ETag: 304 while nothing changed.
    again = anon.get(URL, HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


def test_unknown_parameters_are_refused(anon: APIClient) -> None:
    response = anon.get(URL + "?band=0.9")
    assert response.status_code == 400
    assert "band" in response.json()["error"]["detail"]


def test_the_figures_take_three_statements_however_many_labels(anon: APIClient) -> None:
    for i in range(6):
        o = verdict(i)
        observation_set_state(observation=o, status=ResolutionStatus.UNRESOLVED,
                              expected_revision=o.revision, actor=ALICE, reason="wrong")  # fmt: skip
    link_sample_draw(per_band=1, seed="x", actor=ALICE, reason="check")
    with CaptureQueriesContext(connection) as captured:
        assert anon.get(URL).status_code == 200
    selects = [q for q in captured.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert len(selects) <= 3, [q["sql"] for q in selects]
