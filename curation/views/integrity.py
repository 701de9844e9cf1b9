"""The integrity page of a paper, as HTML and as canonical JSON."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ..integrity import EVENT_SEVERITY, integrity_report
from ..models import Paper
from ..record.builder import record_links
from ..record.canonical import canonical_json, sha256_digest
from ..record.http import conditional_json
from ..record.timestamps import for_people
from .records import checked_id


def _report_or_404(arxiv_id: str) -> dict:  # type: ignore[type-arg]
    report = integrity_report(checked_id(arxiv_id))
    if report is None:
        raise Http404("unknown paper")
    return report


@require_safe
def integrity_json(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Serve the findings as canonical JSON with an ETag."""
    report = _report_or_404(arxiv_id)
    etag = f'"{sha256_digest(report)}"'
    return conditional_json(request, canonical_json(report), etag, "public, max-age=60")


@require_safe
def integrity_page(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Render the findings for a person."""
    report = _report_or_404(arxiv_id)
    paper = Paper.objects.get(arxiv_id=arxiv_id)
    # A finding about a source's event opens the notice on the evidence page, others the resolution.
    findings = [
        {**f, "anchor": "notice" if f["kind"] in EVENT_SEVERITY else "resolution"}
        for f in report["findings"]
    ]
    context = {
        "report": report,
        "findings": findings,
        "observed_label": for_people(report["data_observed_at"]),
        "paper": paper,
        "links": record_links(arxiv_id),
    }
    return render(request, "curation/integrity.html", context)
