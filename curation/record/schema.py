"""JSON Schema of pith.paper-citation-record.v1: validates imports and is served to consumers."""

from __future__ import annotations

from typing import Any

from ..notice_events import EventType
from ..states import NoticeReason, NoticeState, ResolutionStatus, ResolverSource

# Import accepts any ISO-8601 offset (converted to UTC on import); export writes one format per
# field (curation/record/timestamps.py).
_TIMESTAMP = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$"
_UUID = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
_DIGEST = r"^sha256:[0-9a-f]{64}$"
_STATES = [status.value for status in ResolutionStatus]
_EVENT_TYPES = [event_type.value for event_type in EventType]


def _ts(nullable: bool = False) -> dict[str, Any]:
    if nullable:
        return {"type": ["string", "null"], "pattern": _TIMESTAMP}
    return {"type": "string", "pattern": _TIMESTAMP}


def _str(nullable: bool = True) -> dict[str, Any]:
    return {"type": ["string", "null"]} if nullable else {"type": "string"}


def _obj(properties: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """Return a closed object schema: every property required except the optional ones."""
    return {
        "type": "object",
        "properties": properties,
        "required": [k for k in properties if k not in optional],
        "additionalProperties": False,
    }


_ARXIV_ID = {"type": "string", "minLength": 1, "maxLength": 64}

_PAPER_REF = _obj(
    {
        "arxiv_id": _ARXIV_ID,
        "last_updated": _ts(nullable=True),
        "snapshot_observed_at": _ts(nullable=True),
        "submitted_at": _ts(nullable=True),
        "title": _str(nullable=False),
        "version": {"type": ["integer", "null"], "minimum": 1},
    }
)

_CITED_WORK = _obj(
    {
        "arxiv_id": _str(),
        "doi": _str(),
        "metadata_source": _str(),
        "pith_arxiv_id": _str(),
        "snapshot_observed_at": _ts(nullable=True),
        "title": _str(),
        "venue": _str(),
        "work_id": {"type": ["string", "null"], "pattern": _UUID},
        "year": {"type": ["integer", "null"]},
    }
)

_RECEIPT = _obj({"observed_at": _ts(), "source": {"type": "string", "minLength": 1}})

_EVENT = _obj(
    {
        "date": {"type": ["string", "null"], "pattern": r"^\d{4}-\d{2}-\d{2}$"},
        "notice_doi": _str(),
        "notice_url": _str(),
        "reasons": {"type": "array", "items": {"type": "string"}},
        "source": {"type": "string"},
        "source_record_id": {"type": ["string", "integer", "null"]},
        "type": {"enum": _EVENT_TYPES},
    }
)

_OBSERVATION = _obj(
    {
        "citation": _obj(
            {
                "cited_paper": {"anyOf": [{"type": "null"}, _PAPER_REF]},
                "cited_work": {"anyOf": [{"type": "null"}, _CITED_WORK]},
                "citing_paper": _PAPER_REF,
                "reference_index": {"type": "integer"},
                "source": {"type": "string", "minLength": 1, "maxLength": 64},
                "source_observed_at": _ts(),
            }
        ),
        "links": _obj(
            {"citing_paper": {"type": "string"}, "cited_paper": {"type": "string"}},
            optional=("cited_paper",),
        ),
        "observation_digest": {"type": "string", "pattern": _DIGEST},
        "observation_id": {"type": "string", "pattern": _UUID},
        "resolution": _obj(
            {
                "observed_at": _ts(),
                "resolver_source": {"enum": [*(s.value for s in ResolverSource), None]},
                "status": {"enum": _STATES},
            }
        ),
        "standing_notice": _obj(
            {
                "events": {"type": "array", "items": _EVENT},
                "observation": {"type": "string"},
                "reason": {"enum": [*(r.value for r in NoticeReason), None]},
                "source_receipts": {"type": "array", "items": _RECEIPT},
                "state": {"enum": [s.value for s in NoticeState]},
            },
            optional=("observation",),
        ),
    }
)

_COVERAGE_LANE = _obj(
    {
        "denominator": {"type": "integer", "minimum": 0},
        "lane": {
            "enum": [
                "reference_resolution",
                "standing_notices",
                "inbound_itemization",
                "external_citation_measurements",
            ]
        },
        "note": {"type": "string"},
        "records_observed": {"type": "integer", "minimum": 0},
        "source": {"type": "string"},
        "source_observed_at": _ts(nullable=True),
        "state": {"type": "string"},
    }
)

_COUNT = {"type": "integer", "minimum": 0}

RECORD_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "/schema/pith.paper-citation-record.v1.json",
    "title": "pith.paper-citation-record.v1",
    **_obj(
        {
            "as_of": _ts(),
            "caps": _obj({"database_statements": _COUNT, "inbound": _COUNT, "outbound": _COUNT}),
            "context_digest": {"type": "string", "pattern": _DIGEST},
            "coverage": {"type": "array", "items": _COVERAGE_LANE, "minItems": 4, "maxItems": 4},
            "external_citation_measurements": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "source": {"type": "string"},
                        "observed_at": _ts(nullable=True),
                        "count": {"type": ["integer", "null"]},
                    },
                    "required": ["source"],
                },
            },
            "inbound": {"type": "array", "items": _OBSERVATION},
            "links": _obj(
                {k: {"type": "string"} for k in ("evidence", "html", "integrity", "json", "paper")}
            ),
            "outbound": {"type": "array", "items": _OBSERVATION},
            "paper": _obj(
                {
                    "arxiv_id": _ARXIV_ID,
                    "last_updated": _ts(nullable=True),
                    "latest_version": {"type": ["integer", "null"], "minimum": 1},
                    "primary_category": _str(),
                    "snapshot_observed_at": _ts(nullable=True),
                    "submitted_at": _ts(nullable=True),
                    "title": _str(nullable=False),
                }
            ),
            "reference_resolution": _obj(
                {
                    "displayed": _COUNT,
                    "state_counts": _obj({state: _COUNT for state in _STATES}),
                    "total_outbound_references": _COUNT,
                }
            ),
            "refusal": {"type": "string"},
            "schema": {"const": "pith.paper-citation-record.v1"},
            "standing_sources": {"type": "array", "items": _RECEIPT},
            "thesis": {"type": "string"},
        }
    ),
}
