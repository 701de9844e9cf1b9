"""Public record pages: the v1 JSON (canonical bytes, weak ETag) and its HTML page."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from ..arxiv_ids import looks_like_arxiv_id
from ..record.builder import build_record, record_bytes
from ..record.http import conditional_json
from ..states import ResolutionStatus

RECORD_CACHE_CONTROL = "public, max-age=60"


def checked_id(arxiv_id: str) -> str:
    """Return the id, or raise 404 when it cannot be an arXiv id (before any query)."""
    if not looks_like_arxiv_id(arxiv_id):
        raise Http404("not an arXiv id")
    return arxiv_id


def _record_or_404(arxiv_id: str) -> dict[str, Any]:
    record = build_record(checked_id(arxiv_id), timezone.now())
    if record is None:
        raise Http404("unknown paper")
    return record


@require_safe
def citation_record_json(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Serve the record's canonical bytes; answer 304 when the client has this version."""
    record = _record_or_404(arxiv_id)
    etag = f'W/"{record["context_digest"]}"'
    return conditional_json(request, record_bytes(record), etag, RECORD_CACHE_CONTROL)


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


@require_safe
def citation_record_page(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Render the record as a page a person reads."""
    record = _record_or_404(arxiv_id)
    counts = record["reference_resolution"]["state_counts"]
    context = {
        "record": record,
        "outbound": [_page_observation(o, "outbound") for o in record["outbound"]],
        "inbound": [_page_observation(o, "inbound") for o in record["inbound"]],
        "state_counts": [(ResolutionStatus(k).label, k, v) for k, v in counts.items()],
    }
    response = render(request, "curation/citation_record.html", context)
    response["Cache-Control"] = RECORD_CACHE_CONTROL
    return response
