"""Who may do what: curators decide, read-only staff and notice reviewers only look,
API tokens and anonymous visitors get nothing from the admin."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group
from django.test import Client
from rest_framework.authtoken.models import Token

from curation.permissions import CURATORS, NOTICE_REVIEWERS, READ_ONLY_STAFF, ensure_groups

from .conftest import make_user
from .helpers import decide, fresh, page_url

QUEUE = "/admin/curation/observation/"


def test_ensure_groups_is_idempotent(groups: None) -> None:
    ensure_groups()
    ensure_groups()
    assert Group.objects.filter(name__in=[CURATORS, NOTICE_REVIEWERS, READ_ONLY_STAFF]).count() == 3
    curators = Group.objects.get(name=CURATORS)
    assert curators.permissions.filter(codename="change_observation").exists()
    assert not Group.objects.get(name=READ_ONLY_STAFF).permissions.exclude(codename__startswith="view_").exists()


def test_read_only_staff_see_but_cannot_change(resolved: Any, rita: Client) -> None:
    assert rita.get(QUEUE).status_code == 200
    body = rita.get(page_url(resolved[1])).content.decode()
    assert "You can read this reference but not change it" in body and 'value="accept_candidate"' not in body
    before = fresh(resolved[1]).revision
    assert decide(rita, resolved[1], "set_state", status="parse_uncertain", reason="x").status_code == 403
    response = rita.post(QUEUE, {"action": "retire_junk", "apply": "1", "_selected_action": [str(resolved[1].pk)], "reason": "x"})
    assert fresh(resolved[1]).revision == before and fresh(resolved[1]).retired_at is None
    assert response.status_code in (200, 302)


def test_notice_reviewers_cannot_edit_references(resolved: Any, nora: Client) -> None:
    assert nora.get(page_url(resolved[1])).status_code == 200
    before = fresh(resolved[1]).revision
    assert decide(nora, resolved[1], "retire", reason="x").status_code == 403
    assert fresh(resolved[1]).revision == before


def test_curators_get_the_decision_forms_and_bulk_actions(resolved: Any, alice: Client) -> None:
    assert 'value="accept_candidate"' in alice.get(page_url(resolved[1])).content.decode()
    assert "accept_top_candidate" in alice.get(QUEUE).content.decode()


def test_an_api_token_gives_no_admin_access(resolved: Any, groups: None) -> None:
    user = make_user("tokenholder", CURATORS)
    token = Token.objects.create(user=user)
    client = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.get(QUEUE)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    response = client.post(page_url(resolved[1]), {"action": "retire", "revision": 1, "reason": "x"})
    assert response.status_code == 302 and fresh(resolved[1]).retired_at is None


def test_anonymous_visitors_are_sent_to_login(resolved: Any) -> None:
    for url in (QUEUE, page_url(resolved[1]), "/admin/curation/observation/log/"):
        response = Client().get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_staff_without_a_group_see_nothing(resolved: Any, groups: None) -> None:
    client = Client()
    client.force_login(make_user("nobody", None))
    assert client.get(QUEUE).status_code == 403
