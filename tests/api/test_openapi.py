"""The committed OpenAPI file is what the code generates; the schema and docs are served."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

COMMITTED = Path(__file__).resolve().parents[2] / "api" / "openapi.yaml"
REGENERATE = (
    "python manage.py spectacular --settings=tests.settings --validate --file api/openapi.yaml"
)


def test_committed_schema_matches_the_code(tmp_path: Path) -> None:
    generated = tmp_path / "openapi.yaml"
    call_command("spectacular", "--validate", "--file", str(generated), stdout=io.StringIO())

    assert generated.read_text() == COMMITTED.read_text(), f"the API changed: run `{REGENERATE}`"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/"])
def test_schema_and_docs_are_served(anon: APIClient, path: str) -> None:
    assert anon.get(path).status_code == 200
