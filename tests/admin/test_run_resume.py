"""Curators resume a stuck resolution run from the admin ("Resume"); read-only staff cannot."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from curation.resolution.models import RunStatus
from tests.resolution import runs

pytestmark = pytest.mark.django_db

RUNS = "/admin/resolution/resolutionrun/"


def offered_actions(client: Client) -> set[str]:
    response = client.get(RUNS)
    assert response.status_code == 200
    action_form: Any = response.context["action_form"]  # None when no action is offered
    return {name for name, _ in action_form.fields["action"].choices} if action_form else set()


def test_a_curator_sees_and_uses_the_resume_action(
    alice: Client, django_capture_on_commit_callbacks: Any
) -> None:
    run = runs.make_run(4, 4)

    assert "resume_runs" in offered_actions(alice)
    with django_capture_on_commit_callbacks(execute=True):  # chunks are queued on commit
        response = alice.post(
            RUNS, {"action": "resume_runs", "_selected_action": [run.pk]}, follow=True
        )

    assert [str(m) for m in response.context["messages"]] == [
        f"run {run.pk}: 1 unfinished chunks queued again"
    ]
    run.refresh_from_db()
    assert run.status == RunStatus.DONE  # tasks run in process in tests


def test_read_only_staff_are_not_offered_it(rita: Client) -> None:
    runs.make_run(4, 4)

    assert "resume_runs" not in offered_actions(rita)
