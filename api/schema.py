"""OpenAPI pieces shared by the views: the error body and the record document."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse

ERROR_BODY: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["status", "code", "detail"],
            "properties": {
                "status": {"type": "integer"},
                "code": {"type": "string"},
                "detail": {},
            },
        }
    },
}

# The full JSON Schema is served at /schema/pith.paper-citation-record.v1.json (draft 2020-12,
# which OpenAPI 3.0 cannot express); the API description names the top-level keys.
RECORD_DOCUMENT: dict[str, Any] = {
    "type": "object",
    "description": "pith.paper-citation-record.v1; see /schema/pith.paper-citation-record.v1.json",
    "required": [
        "as_of",
        "caps",
        "context_digest",
        "coverage",
        "external_citation_measurements",
        "inbound",
        "links",
        "outbound",
        "paper",
        "reference_resolution",
        "refusal",
        "schema",
        "standing_sources",
        "thesis",
    ],
    "properties": {
        "schema": {"type": "string", "enum": ["pith.paper-citation-record.v1"]},
        "context_digest": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
        "outbound": {"type": "array", "items": {"type": "object"}},
        "inbound": {"type": "array", "items": {"type": "object"}},
    },
}


def _error(description: str) -> OpenApiResponse:
    return OpenApiResponse(ERROR_BODY, description=description)


ERRORS = {
    400: _error("Unknown or invalid parameter, or a bad cursor"),
    404: _error("No such object"),
    429: _error("Too many requests"),
}
AUTH_ERRORS = {401: _error("Not authenticated"), 403: _error("Not allowed")}
