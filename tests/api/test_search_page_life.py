"""A list page of a free-text search (`papers?search=`) stays cached API_SEARCH_CACHE_SECONDS,
not the day a record or a plain list page may stay: each distinct search is one more entry, and
anybody can ask thousands of them."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import caches
from rest_framework.test import APIClient

from api import page_cache

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """Record the life each stored page was given (None: the cache's default)."""
    lives: list[int | None] = []
    cache = caches[page_cache.CACHE]
    real_set = cache.set

    def spy(key: str, value: Any, timeout: Any = None, **kwargs: Any) -> None:
        lives.append(timeout)
        real_set(key, value, timeout, **kwargs)

    monkeypatch.setattr(cache, "set", spy)
    page_cache.forget_all()
    return lives


def test_a_search_page_is_kept_for_the_search_life_and_a_plain_list_for_the_default(
    anon: APIClient, sample: dict[str, Any], stored: list[int | None], settings: Any
) -> None:
    settings.API_SEARCH_CACHE_SECONDS = 120

    assert anon.get("/api/v1/papers", {"search": "deep learning"}).status_code == 200
    assert anon.get("/api/v1/papers").status_code == 200

    assert stored == [120, None]
