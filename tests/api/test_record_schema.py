"""The JSON Schema of v1 is served, and the sample and exported records validate against it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from rest_framework.test import APIClient

from curation.record.schema import RECORD_SCHEMA

pytestmark = pytest.mark.django_db

URL = "/schema/pith.paper-citation-record.v1.json"


def test_schema_is_served(anon: APIClient) -> None:
    response = anon.get(URL)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/schema+json"
    assert json.loads(response.content) == RECORD_SCHEMA
    jsonschema.Draft202012Validator.check_schema(RECORD_SCHEMA)


def test_sample_validates(sample_record_path: Path) -> None:
    jsonschema.validate(json.loads(sample_record_path.read_text()), RECORD_SCHEMA)


def test_served_records_validate(anon: APIClient, sample: dict[str, Any], big_record: str) -> None:
    for arxiv_id in ("2412.14374", big_record):
        jsonschema.validate(
            json.loads(anon.get(f"/api/v1/records/{arxiv_id}").content), RECORD_SCHEMA
        )


def test_a_broken_record_does_not_validate(sample_record_path: Path) -> None:
    record = json.loads(sample_record_path.read_text())
    record["outbound"][0]["resolution"]["status"] = "probably_fine"

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record, RECORD_SCHEMA)
