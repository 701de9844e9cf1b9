"""The integrity page of a paper, as HTML and as canonical JSON.

Both are throttled more tightly than other pages (a finding per reference is built for every
reference: 0.76 s for 1,000), and the report is cached under the paper's record version, which
every write that changes what the report reads bumps (curation/record/cache.py).
"""

from __future__ import annotations

from django.core.cache import caches
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ..integrity import EVENT_SEVERITY, integrity_report
from ..models import Paper
from ..record.builder import record_links
from ..record.canonical import canonical_json, sha256_digest
from ..record.http import conditional_json
from ..record.selectors import record_version
from ..record.timestamps import for_people
from .records import checked_id
from .throttling import throttled

# Part of every cache key: change it when the report's content changes for the same data.
REPORT_BUILD = "integrity-1"


def _report_or_404(arxiv_id: str) -> dict:  # type: ignore[type-arg]
    report = _cached_report(checked_id(arxiv_id))
    if report is None:
        raise Http404("unknown paper")
    return report


def _cached_report(arxiv_id: str) -> dict | None:  # type: ignore[type-arg]
    """Return the report of the record's current version, built once per version."""
    version = record_version(arxiv_id)
    if version is None:
        return None
    cache = caches["records"]
    key = f"integrity:{REPORT_BUILD}:{version.key}"
    report: dict | None = cache.get(key)  # type: ignore[type-arg]
    if report is None:
        # Built after the version was read, so never older than it (as the record's bytes).
        report = integrity_report(arxiv_id)
        if report is not None:
            cache.set(key, report)
    return report


@require_safe
@throttled("INTEGRITY_THROTTLE_CLASSES")
def integrity_json(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Serve the findings as canonical JSON with an ETag."""
    report = _report_or_404(arxiv_id)
    etag = f'"{sha256_digest(report)}"'
    return conditional_json(request, canonical_json(report), etag, "public, max-age=60")


@require_safe
@throttled("INTEGRITY_THROTTLE_CLASSES")
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
