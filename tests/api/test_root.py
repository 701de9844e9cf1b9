"""The API root lists every endpoint of /api/v1/, so a reader can find them all."""

from __future__ import annotations

import re
import uuid

from django.urls import Resolver404, URLPattern, resolve
from rest_framework.test import APIClient

from api import urls as api_urls

# The routes that are not endpoints of v1: the root itself, the schema, its docs, the 404.
NOT_ENDPOINTS = {"root", "root-v1", "root-v1-bare", "schema", "docs", None}
PLACEHOLDER_VALUES = ("2412.14374", str(uuid.uuid4()), "12", "observation")


def route_name(path: str) -> str | None:
    """Return the name of the API route `path` reaches, trying sample values for placeholders."""
    for value in PLACEHOLDER_VALUES:
        try:
            name = resolve(re.sub(r"\{[a-z_]+\}", value, path)).url_name
        except Resolver404:
            continue
        if name is not None:
            return name
    return None


def test_the_root_lists_every_v1_endpoint(db: None) -> None:
    listed = APIClient().get("/api/v1/").json()["endpoints"]
    named = {
        p.name
        for p in api_urls.urlpatterns
        if isinstance(p, URLPattern) and p.name not in NOT_ENDPOINTS
    }

    reached = {route_name(endpoint["path"]) for endpoint in listed}

    assert named - reached == set()
    assert None not in reached  # every listed path is a route
