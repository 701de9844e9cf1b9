"""The evidence page: what states and sources mean, how digests are made, and per observation
the stored evidence of its resolution with a summary of its history."""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ..people import without_staff_names
from ..record.builder import observation_v1
from ..record.timestamps import for_people, format_seconds, text_for_people
from ..resolution.candidates import agreement, candidates_from_evidence
from ..resolution.scoring import FUZZY_THRESHOLD
from ..selectors import observation_events, observation_for_evidence
from ..states import ResolutionStatus, ResolverSource
from .throttling import throttled

STATE_MEANINGS = {
    ResolutionStatus.VERIFIED_EXACT: "An identifier or an equal normalised title matched exactly one known record, and year and first author do not contradict it.",
    ResolutionStatus.VERIFIED_FUZZY: "The title matched exactly one known record above the similarity threshold, clearly better than any other, without contradiction.",
    ResolutionStatus.METADATA_MISMATCH: "An identifier or title points at a known record, but the title names another work or the year or first author contradict it.",
    ResolutionStatus.UNRESOLVED: "No known record matched well enough, or two or more matched equally well (candidates are kept for curators). Web and software references land here.",
    ResolutionStatus.MALFORMED_IDENTIFIER: "The reference carries an identifier that is invalid and cannot be repaired, and its title did not verify.",
    ResolutionStatus.PARSE_UNCERTAIN: "The text has no usable title and no identifier: an author-list fragment, a venue alone, a year, an artefact, or nothing.",
}
SOURCE_MEANINGS = {
    ResolverSource.LOCAL_ARXIV: "The local arXiv catalogue (the arXiv metadata snapshot).",
    ResolverSource.PITH: "An arXiv paper known only because it has its own citation record here.",
    ResolverSource.DOI: "A DOI record, from the local Crossref catalogue or the Crossref API.",
    ResolverSource.RAW_FALLBACK: "Only the raw reference: no catalogue produced a candidate.",
}

# What a candidate's score means, wherever a public page shows one (the evidence page).
SCORE_MEANING = (
    "A candidate's score says how well a catalogue record matches the reference, from 0 to 100: "
    "mostly how alike the two titles are, raised a little when the first author, year and venue "
    "agree, and lowered by about 20–30 when the author or year contradict. 100 is the same title "
    "with everything agreeing. A score is a ranking aid, not a verdict: the state is decided by "
    f"the rules above (titles must be at least {FUZZY_THRESHOLD:g}% alike to verify), and two "
    "candidates with the same best score leave the reference unresolved. In the stored evidence "
    "(JSON) the score is on the resolver's own scale, from −50 to 106."
)


def _observation_context(value: str) -> dict:  # type: ignore[type-arg]
    try:
        observation_id = uuid.UUID(value)
    except ValueError as exc:
        raise Http404("not an observation id") from exc
    observation = observation_for_evidence(observation_id)
    if observation is None:
        raise Http404("unknown observation")
    resolution = getattr(observation, "resolution", None)
    history = [
        event
        for _, event in observation_events(
            observation_id, ("Observation", "Resolution", "StandingNotice")
        )
    ]
    history.sort(key=lambda e: e.pgh_created_at)
    item = observation_v1(observation)
    evidence = resolution.evidence if resolution else {}
    notice = item["standing_notice"]
    return {
        "observation": observation,
        "item": item,
        # An imported resolution has no evidence: say so rather than show "{}".
        "evidence_json": json.dumps(without_staff_names(evidence), indent=2, sort_keys=True)
        if evidence
        else "",
        "evidence_summary": _evidence_summary(evidence),
        "candidates": [
            {"view": c, "agreement": agreement(c)} for c in candidates_from_evidence(evidence)
        ],
        "notice_summary": _notice_summary(notice),
        "receipts": [
            {"source": r["source"], "at_label": for_people(r["observed_at"])}
            for r in notice["source_receipts"]
        ],
        "origin": resolution.origin if resolution else None,
        "history": [
            {
                "at": event.pgh_created_at,
                "at_label": for_people(format_seconds(event.pgh_created_at)),
                "model": type(event).__name__.removesuffix("Event"),
                "label": event.pgh_label,
                "context": event.pgh_context.metadata if event.pgh_context else {},
            }
            for event in history
        ],
    }


def _evidence_summary(evidence: dict[str, Any]) -> str:
    """Return the stored evidence in a sentence: what was found and what was compared."""
    if not evidence:
        return ""
    parts = []
    found = [
        f"{kind.replace('_', ' ')} {', '.join(map(str, v)) if isinstance(v, list) else v}"
        for kind, v in sorted((evidence.get("identifiers") or {}).items())
        if v
    ]
    parts.append("identifiers found: " + "; ".join(found) if found else "no identifier found")
    candidates = evidence.get("candidates") or []
    if candidates:
        parts.append(f"{len(candidates)} candidate{'s' if len(candidates) != 1 else ''} scored")
    repairs = evidence.get("repairs") or []
    if repairs:
        parts.append(f"{len(repairs)} repair{'s' if len(repairs) != 1 else ''} made")
    if evidence.get("resolver_version"):
        parts.append(f"resolver {evidence['resolver_version']}")
    return ("; ".join(parts) or "Evidence stored") + "."


def _notice_summary(notice: dict[str, Any]) -> str:
    if notice["state"] == "unavailable":
        return "Not checked: " + (notice["reason"] or "no source answered").replace("_", " ") + "."
    if notice["events"]:
        return f"{len(notice['events'])} event(s) reported by the named sources:"
    return text_for_people(notice.get("observation") or "No event reported.")


@require_safe
@throttled()
def evidence_page(request: HttpRequest) -> HttpResponse:
    """Explain the record's vocabulary and digests; show one observation's evidence if asked."""
    context: dict = {  # type: ignore[type-arg]
        "states": [(s.value, STATE_MEANINGS[s]) for s in ResolutionStatus],
        "sources": [(s.value, SOURCE_MEANINGS[s]) for s in ResolverSource],
        "score_meaning": SCORE_MEANING,
    }
    if "observation" in request.GET:
        context.update(_observation_context(request.GET["observation"]))
    return render(request, "curation/evidence.html", context)
