"""Public record pages: the v1 JSON (canonical bytes, weak ETag) and its HTML page.

Both answer through curation.record.http.record_response, as the API does: the same cached
bytes, the same ETag rules, and a 304 from the record's version without building anything.
"""

from __future__ import annotations

import json
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ..arxiv_ids import looks_like_arxiv_id
from ..record.cache import RecordBytes
from ..record.http import JSON, Representation, record_response
from ..states import ResolutionStatus


def checked_id(arxiv_id: str) -> str:
    """Return the id, or raise 404 when it cannot be an arXiv id (before any query)."""
    if not looks_like_arxiv_id(arxiv_id):
        raise Http404("not an arXiv id")
    return arxiv_id


def _found(response: HttpResponse | None) -> HttpResponse:
    if response is None:
        raise Http404("unknown paper")
    return response


@require_safe
def citation_record_json(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Serve the record's canonical bytes; answer 304 when the client has this version."""
    return _found(record_response(request, checked_id(arxiv_id), JSON))


def _cited_label(observation: dict[str, Any]) -> str | None:
    citation = observation["citation"]
    if citation["cited_paper"]:
        return str(citation["cited_paper"]["title"])
    work = citation["cited_work"] or {}
    return work.get("title") or None


def _page_observation(observation: dict[str, Any], direction: str) -> dict[str, Any]:
    """Return an observation with the labels the page shows."""
    resolution = observation["resolution"]
    return {
        **observation,
        "direction": direction,
        "cited_label": _cited_label(observation),
        "status_label": ResolutionStatus(resolution["status"]).label,
        "resolver_label": resolution["resolver_source"] or "no resolver link",
        "notice_reason_label": (observation["standing_notice"]["reason"] or "").replace("_", " "),
    }


def _render_page(request: HttpRequest, built: RecordBytes) -> HttpResponse:
    record = json.loads(built.body)
    counts = record["reference_resolution"]["state_counts"]
    context = {
        "record": record,
        "outbound": [_page_observation(o, "outbound") for o in record["outbound"]],
        "inbound": [_page_observation(o, "inbound") for o in record["inbound"]],
        "state_counts": [(ResolutionStatus(k).label, k, v) for k, v in counts.items()],
    }
    return render(request, "curation/citation_record.html", context)


# The page's ETag names the template version too: a new page layout is a new representation.
PAGE = Representation(".page-1", _render_page)


@require_safe
def citation_record_page(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Render the record as a page a person reads."""
    return _found(record_response(request, checked_id(arxiv_id), PAGE))
