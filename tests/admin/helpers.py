"""Small helpers the admin tests share: URLs, posting a decision, reading the record."""

from __future__ import annotations

import json
from typing import Any

from django.apps import apps
from django.test import Client

from curation.models import Observation


def page_url(observation: Observation) -> str:
    """Return the observation page's URL."""
    return f"/admin/curation/observation/{observation.pk}/change/"


def decide(client: Client, observation: Observation, action: str, revision: int | None = None, **data: Any) -> Any:
    """Post a decision on the revision given (default: the current one)."""
    if revision is None:
        revision = Observation.objects.get(pk=observation.pk).revision
    return client.post(page_url(observation), {"action": action, "revision": revision, **data})


def fresh(observation: Observation) -> Observation:
    """Return the observation as stored now."""
    return Observation.objects.select_related("resolution", "cited_paper").get(pk=observation.pk)


def record(client: Client, arxiv_id: str) -> dict[str, Any]:
    """Return a paper's v1 record."""
    return json.loads(client.get(f"/paper/{arxiv_id}/citation-record.json").content)  # type: ignore[no-any-return]


def last_context(observation: Observation) -> dict[str, Any]:
    """Return the history context of the observation's latest event."""
    event = (
        apps.get_model("curation", "ObservationEvent")
        .objects.filter(pgh_obj_id=observation.pk)
        .select_related("pgh_context")
        .order_by("-pgh_id")
        .first()
    )
    assert event is not None and event.pgh_context is not None
    return event.pgh_context.metadata  # type: ignore[no-any-return]
