"""History for authenticated users; anonymous throttling; tokens for higher limits."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from curation.models import Observation

pytestmark = pytest.mark.django_db


def _observation_id() -> str:
    return str(Observation.objects.get(work_title="write newline").pk)


def test_history_needs_authentication(anon: APIClient, sample: dict[str, Any]) -> None:
    response = anon.get(f"/api/v1/history/observations/{_observation_id()}")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_history_lists_events_with_their_context(reader: APIClient, sample: dict[str, Any]) -> None:
    response = reader.get(f"/api/v1/history/observations/{_observation_id()}")

    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    events = response.json()["results"]
    # The observation's own insert, and those of its resolution and notice.
    assert {e["model"] for e in events} == {
        "curation.ObservationEvent",
        "curation.ResolutionEvent",
        "curation.StandingNoticeEvent",
    }
    assert all(e["label"] == "insert" for e in events)
    assert events[0]["context"]["reason"] == "import of citation records"
    assert events[0]["context"]["actor"] == "command:import_records"


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/history/observations/not-a-uuid",
        "/api/v1/history/observations/00000000-0000-0000-0000-000000000000",
        "/api/v1/history/planets/1",
        "/api/v1/history/papers/2412.99999",
    ],
)
def test_history_of_unknown_objects_is_404(
    reader: APIClient, sample: dict[str, Any], path: str
) -> None:
    assert reader.get(path).status_code == 404


def _rates(monkeypatch: pytest.MonkeyPatch, anon: str, user: str) -> None:
    # DRF reads the rates once, into a class attribute, when throttling is imported.
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": anon, "user": user})


def test_anonymous_reads_are_throttled_and_tokens_go_further(
    monkeypatch: pytest.MonkeyPatch, anon: APIClient, reader: APIClient
) -> None:
    _rates(monkeypatch, "3/min", "6/min")

    anon_codes = [anon.get("/api/v1/papers").status_code for _ in range(4)]
    reader_codes = [reader.get("/api/v1/papers").status_code for _ in range(7)]

    assert anon_codes == [200, 200, 200, 429]
    assert reader_codes == [200] * 6 + [429]
    limited = anon.get("/api/v1/papers")
    assert limited.json()["error"]["code"] == "throttled" and "Retry-After" in limited


def test_throttles_can_be_switched_off(monkeypatch: pytest.MonkeyPatch, anon: APIClient) -> None:
    _rates(monkeypatch, "off", "off")

    assert {anon.get("/api/v1/papers").status_code for _ in range(5)} == {200}
