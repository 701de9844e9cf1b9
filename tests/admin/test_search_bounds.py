"""Admin searches are bounded: every changelist with a search box cuts a search past
ADMIN_SEARCH_MAX_TERMS words or ADMIN_SEARCH_MAX_CHARS characters, runs the cut one and tells
the curator; a search of symbols only finds nothing instead of failing."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

QUEUE = "/admin/curation/observation/"
TWO_THOUSAND_TERMS = " ".join(f"w{n}" for n in range(2_000))


def searchable_changelists() -> list[str]:
    """Return the changelist URL of every registered model admin that has a search box."""
    return [
        reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for model, model_admin in admin.site._registry.items()
        if model_admin.get_search_fields(None)  # type: ignore[arg-type]
    ]


def said(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


@pytest.mark.parametrize("term", ["--", "%%", "'", "-- %% '"])
def test_a_search_of_symbols_only_finds_nothing_and_does_not_fail(alice: Client, term: str) -> None:
    response = alice.get(QUEUE, {"q": term})

    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == []


def test_every_changelist_with_a_search_cuts_thousands_of_terms_and_says_so(
    admin_client: Client, settings: Any
) -> None:
    settings.ADMIN_SEARCH_MAX_TERMS = 10
    urls = searchable_changelists()
    assert len(urls) > 10  # ours and the third parties' (users, groups, login attempts)

    for url in urls:
        response = admin_client.get(url, {"q": TWO_THOUSAND_TERMS})

        assert response.status_code == 200, url
        assert response.context["cl"].query == "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9", url
        assert any("first 10 words" in m for m in said(response)), url


def test_a_search_longer_than_allowed_keeps_its_start(admin_client: Client, settings: Any) -> None:
    settings.ADMIN_SEARCH_MAX_CHARS = 50
    response = admin_client.get(QUEUE, {"q": "x" * 5_000})

    assert response.context["cl"].query == "x" * 50
    assert any("first 50 characters" in m for m in said(response))


def test_a_search_within_the_bounds_is_left_alone(admin_client: Client) -> None:
    response = admin_client.get(QUEUE, {"q": "deep residual learning"})

    assert response.context["cl"].query == "deep residual learning"
    assert said(response) == []
