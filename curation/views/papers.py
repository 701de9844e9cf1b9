"""The paper page: metadata, links, reference states (with a small chart) and notices."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ..record.builder import record_links
from ..record.selectors import record_data
from ..selectors import inbound_state_counts
from ..states import ResolutionStatus
from .records import checked_id
from .throttling import throttled

_CHART_WIDTH = 320


def _state_rows(outbound: dict[str, int], inbound: dict[str, int]) -> list[dict[str, Any]]:
    """Return one row per state with both counts and the chart bar width."""
    largest = max([*outbound.values(), *inbound.values(), 1])
    return [
        {
            "key": status.value,
            "label": status.label,
            "outbound": outbound.get(status.value, 0),
            "inbound": inbound.get(status.value, 0),
            "bar": round(_CHART_WIDTH * outbound.get(status.value, 0) / largest),
        }
        for status in ResolutionStatus
    ]


@require_safe
@throttled()
def paper_page(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Render a paper with its citation counts by state and the notices about it."""
    data = record_data(checked_id(arxiv_id))
    if data is None:
        raise Http404("unknown paper")
    notices = []
    for observation in data.inbound:
        notice = getattr(observation, "standing_notice", None)
        if notice is not None and notice.events:
            notices = notice.events  # every link to this paper shares its canonical work
            break
    context = {
        "paper": data.paper,
        "links": record_links(data.paper.arxiv_id),
        "states": _state_rows(data.state_counts, inbound_state_counts(data.paper)),
        "outbound_total": data.outbound_total,
        "inbound_total": data.inbound_total,
        "notices": notices,
        "chart_width": _CHART_WIDTH,
    }
    response = render(request, "curation/paper.html", context)
    response["Cache-Control"] = "public, max-age=60"
    return response
