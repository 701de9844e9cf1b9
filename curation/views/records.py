"""Public record pages: the v1 JSON (canonical bytes, weak ETag) and its HTML page.

Both answer through curation.record.http.record_response, as the API does: the same cached
bytes, the same ETag rules, and a 304 from the record's version without building anything.
"""

from __future__ import annotations

import hashlib
import json
from functools import partial
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ..ingestion.models import PaperIngestion
from ..ingestion.selectors import ingestion_of, known_only_from_a_failed_request, public_reason
from ..record.cache import RecordBytes
from ..record.http import JSON, PAGE_ETAG_SUFFIX, Representation, record_response
from ..record.reference_notes import ReferenceNote, reference_notes
from ..record.timestamps import for_people, text_for_people
from ..references.identifiers import looks_like_arxiv_id
from ..states import ResolutionStatus
from .throttling import throttled


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
@throttled()
def citation_record_json(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Serve the record's canonical bytes; answer 304 when the client has this version."""
    return _found(record_response(request, checked_id(arxiv_id), JSON))


# Events after which the cited work no longer stands as published (SPEC §4); others amend it.
_RETRACTING = {"retraction", "partial_retraction", "withdrawal", "removal"}


def _target(observation: dict[str, Any]) -> dict[str, Any]:
    """Return what a reference cites, as the page shows it: title, where it links, identifiers."""
    citation = observation["citation"]
    paper, work = citation["cited_paper"], citation["cited_work"] or {}
    title = (paper or {}).get("title") or work.get("title")
    doi, arxiv_id = work.get("doi"), (paper or {}).get("arxiv_id") or work.get("arxiv_id")
    return {
        "title": title or "(no title in the reference)",
        "untitled": not title,
        "href": observation["links"].get("cited_paper"),
        "arxiv_id": arxiv_id,
        "doi": doi,
        "year": work.get("year"),
        "venue": work.get("venue"),
    }


# How a linked arXiv paper's published DOI is known (curation.catalogue.versions), in words.
_VERSION_VIA = {
    "arxiv_doi": "the DOI on its arXiv record",
    "crossref_relation": "Crossref records the arXiv paper as its preprint",
    "journal_ref": "its arXiv journal reference names this article",
}


def _version(note: ReferenceNote | None) -> dict[str, str] | None:
    """Return the linked arXiv paper's published version as the page shows it, or None."""
    if note is None or note.version is None:
        return None
    return {**note.version, "via_label": _VERSION_VIA.get(note.version["via"], "")}


def _events(notice: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            **event,
            "label": event["type"].replace("_", " ").capitalize(),
            "date_label": for_people(event["date"]),
            "retracting": event["type"] in _RETRACTING,
        }
        for event in notice["events"]
    ]


def _notice(notice: dict[str, Any]) -> dict[str, Any]:
    """Return the standing notice in words, with one timestamp style."""
    reason = (notice["reason"] or "").replace("_", " ")
    if notice["state"] == "unavailable":
        summary = f"Not checked: {reason}." if reason else "Not checked."
    elif notice["events"]:
        summary = "; ".join(e["type"].replace("_", " ") for e in notice["events"]).capitalize()
    else:
        summary = text_for_people(notice.get("observation") or "No event reported.")
    receipts = [
        {"source": r["source"], "at": r["observed_at"], "at_label": for_people(r["observed_at"])}
        for r in notice["source_receipts"]
    ]
    return {"state": notice["state"], "summary": summary, "receipts": receipts}


def _page_observation(
    observation: dict[str, Any], note: ReferenceNote | None = None
) -> dict[str, Any]:
    """Return an observation with the words and labels the page shows."""
    resolution = observation["resolution"]
    return {
        "note": note,
        "id": observation["observation_id"],
        "index": observation["citation"]["reference_index"],
        "citing": observation["citation"]["citing_paper"],
        "citing_href": observation["links"]["citing_paper"],
        "status": resolution["status"],
        "status_label": ResolutionStatus(resolution["status"]).label,
        "resolver": resolution["resolver_source"],
        "resolved_at": resolution["observed_at"],
        "resolved_label": for_people(resolution["observed_at"]),
        "source": observation["citation"]["source"],
        "source_at_label": for_people(observation["citation"]["source_observed_at"]),
        "target": _target(observation),
        "version": _version(note),
        "events": _events(observation["standing_notice"]),
        "notice": _notice(observation["standing_notice"]),
        "digest": observation["observation_digest"],
    }


def _summary(record: dict[str, Any], outbound: list[dict[str, Any]]) -> dict[str, Any]:
    """Return what a reader wants first: states, and cited works with notices."""
    counts = record["reference_resolution"]["state_counts"]
    states = [
        {"key": status.value, "label": status.label, "count": counts.get(status.value, 0)}
        for status in ResolutionStatus
    ]
    flagged = [o for o in outbound if o["events"]]
    return {
        "states": states,
        "retracted": [o for o in flagged if any(e["retracting"] for e in o["events"])],
        "amended": [o for o in flagged if not any(e["retracting"] for e in o["events"])],
        "unchecked": sum(1 for o in outbound if o["notice"]["state"] == "unavailable"),
        "checked": sum(1 for o in outbound if o["notice"]["state"] == "measured"),
    }


def _render_page(
    request: HttpRequest, built: RecordBytes, ingestion: PaperIngestion | None = None
) -> HttpResponse:
    record = json.loads(built.body)
    # What web and software references carry (link, host, text) is not in v1: one statement.
    notes = reference_notes(
        {o["observation_id"]: _target(o)["untitled"] for o in record["outbound"]}
    )
    outbound = [_page_observation(o, notes.get(o["observation_id"])) for o in record["outbound"]]
    paper = record["paper"]
    context = {
        "record": record,
        "paper": paper,
        "submitted_label": for_people(paper["submitted_at"]),
        "updated_label": for_people(paper["last_updated"]),
        "as_of_label": for_people(record["as_of"]),
        "summary": _summary(record, outbound),
        "outbound": outbound,
        "inbound": [_page_observation(o) for o in record["inbound"]],
        "inbound_total": record["coverage"][2]["denominator"],
        "coverage": [
            {
                **lane,
                "label": lane["lane"].replace("_", " ").capitalize(),
                "at_label": for_people(lane["source_observed_at"]),
            }
            for lane in record["coverage"]
        ],
        "sources": [
            {**s, "at_label": for_people(s["observed_at"])} for s in record["standing_sources"]
        ],
        "measurements": [
            {**m, "at_label": for_people(m.get("observed_at"))}
            for m in record["external_citation_measurements"]
        ],
        "ingestion": ingestion,
        "ingestion_reason": public_reason(ingestion) if ingestion else "",
    }
    return render(request, "curation/citation_record.html", context)


PAGE = Representation(PAGE_ETAG_SUFFIX, _render_page)


@require_safe
@throttled()
def citation_record_page(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Render the record as a page a person reads, with where its ingestion stands."""
    ingestion = ingestion_of(checked_id(arxiv_id))
    if ingestion is None:
        return _found(record_response(request, arxiv_id, PAGE))
    if known_only_from_a_failed_request(ingestion):  # no record, but the reader may know why
        context = {"arxiv_id": arxiv_id, "reason": public_reason(ingestion)}
        return render(request, "curation/paper_not_found.html", context, status=404)
    # The page shows the ingestion's state, which changes without the record changing (a
    # failure): it is part of the page's ETag, so a cached page never hides a new state.
    stamp = f"{ingestion.state}{ingestion.updated_at.isoformat()}"
    representation = Representation(
        f"{PAGE_ETAG_SUFFIX}.{hashlib.sha256(stamp.encode()).hexdigest()[:12]}",
        partial(_render_page, ingestion=ingestion),
    )
    return _found(record_response(request, arxiv_id, representation))
