"""The integrity page of a paper, as HTML and as canonical JSON.

Both are throttled more tightly than other pages (a finding per reference is built for every
reference: 0.76 s for 1,000), and the report is cached under the paper's record version, which
every write that changes what the report reads bumps (curation/record/cache.py).
"""

from __future__ import annotations

from html import escape
from typing import Any

from django.core.cache import caches
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_safe

from ..integrity import EVENT_SEVERITY, integrity_report
from ..record.builder import record_links
from ..record.canonical import canonical_json, sha256_digest
from ..record.http import conditional_json
from ..record.selectors import record_version
from ..record.timestamps import for_people
from ..selectors import paper_by_arxiv_id
from .records import checked_id
from .throttling import throttled

# Part of every cache key: change it when the report's content changes for the same data.
REPORT_BUILD = "integrity-1"

# One row of the findings table. A paper with 1,500 references has about 900 findings: rendered
# by the template language they took longer than building the report, so the rows are formatted
# here, every value escaped as the template escaped it (the same bytes).
_FINDING_ROW = (
    '\n    <tr><td>{severity}</td><td><a href="{record}#obs-{observation}">{reference}</a></td>\n'
    '        <td>{statement} <a class="muted" href="{evidence}?observation={observation}#{anchor}">'
    "evidence</a></td></tr>\n  "
)


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


def _finding_rows(findings: list[dict[str, Any]], links: dict[str, str]) -> SafeString:
    """Return the findings table's rows; a finding about an event opens the notice's evidence."""
    record, evidence = escape(links["html"]), escape(links["evidence"])
    return mark_safe(  # noqa: S308 - every value below is escaped
        "".join(
            _FINDING_ROW.format(
                severity=escape(f["severity"]),
                record=record,
                observation=escape(f["observation_id"]),
                reference=escape(str(f["reference_index"])),
                statement=escape(f["statement"]),
                evidence=evidence,
                anchor="notice" if f["kind"] in EVENT_SEVERITY else "resolution",
            )
            for f in findings
        )
    )


@require_safe
@throttled("INTEGRITY_THROTTLE_CLASSES")
def integrity_page(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Render the findings for a person."""
    report = _report_or_404(arxiv_id)
    paper = paper_by_arxiv_id(arxiv_id)
    if paper is None:  # gone since its report was cached
        raise Http404("unknown paper")
    links = record_links(arxiv_id)
    context = {
        "report": report,
        "finding_rows": _finding_rows(report["findings"], links),
        "observed_label": for_people(report["data_observed_at"]),
        "paper": paper,
        "links": links,
    }
    return render(request, "curation/integrity.html", context)
