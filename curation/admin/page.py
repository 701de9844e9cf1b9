"""What the observation page shows: the reference, its parse and repairs, the evidence,
ranked candidates, the resolver's proposal or disagreement, and the decision forms."""

from __future__ import annotations

import json
from typing import Any

from django import forms

from curation.ingestion.services.fetched_links import FetchFailed, source_of
from curation.models import Observation
from curation.record.builder import observation_v1, record_links
from curation.references import parse_reference
from curation.resolution.selectors import propose, stored_disagreement
from curation.selectors import group_note, same_text_observations
from curation.services.observations import CurationError
from curation.states import VERIFIED_STATUSES, ResolverSource

from .accepting import (
    NeedsConfirmation,
    acceptable,
    needs_confirmation,
    ranked_candidates,
    threshold,
    why_confirm,
)
from .conflict import conflict_for
from .decisions import DECISIONS, NotCatalogued
from .describe import described
from .forms import STATE_CHOICES, seen_pairs
from .history import observation_changes

RECENT_CHANGES = 5
# The parse's fields listed on the page, when set.
PARSED_FIELDS_SHOWN = (
    "kind",
    "title",
    "year",
    "venue",
    "first_author_surname",
    "url",
    "title_problem",
)


def _forms(
    obj: Observation, bound: forms.Form | None, action: str | None, same_text: list[Observation]
) -> dict[str, forms.Form]:
    """Return one form per decision on the revision shown, filled with the current values.

    A form with errors comes back as typed; one refused as stale does not (its values are in
    the conflict panel, which needs an explicit choice): a form never carries values made on
    an older revision together with the current revision.
    """
    initial = {
        "revision": obj.revision,
        "work_title": obj.work_title or "",
        "work_year": obj.work_year,
        "work_venue": obj.work_venue or "",
        "reference_index": obj.reference_index,
        "targets": " ".join(seen_pairs(same_text)),
    }
    # A refused fetch-and-link comes back in the Link form it was offered from.
    action = "link" if action == "fetch_link" else action
    built: dict[str, forms.Form] = {}
    for name, decision in DECISIONS.items():
        if bound is None or name != action:
            built[name] = decision.form(initial=initial, auto_id=f"id_{name}_%s")
        elif bound.errors:
            built[name] = bound  # show the errors next to what was typed
        else:
            # Refused for another reason (e.g. an unknown DOI): keep what was typed on the
            # revision it was typed on, so a change made meanwhile still refuses it.
            typed = {k: v for k, v in bound.data.items() if k != "csrfmiddlewaretoken"}
            built[name] = decision.form(initial={**initial, **typed}, auto_id=f"id_{name}_%s")
    return built


def _parse(obj: Observation) -> dict[str, Any] | None:
    if not obj.raw_text:
        return None
    return parse_reference(obj.raw_text).to_dict()


def _choices(
    obj: Observation, top: Any, same_text: int, proposal: bool
) -> list[tuple[str, str, str]]:
    """Return the decisions the Decide form offers here: (action, label, keyboard shortcut)."""
    offered = [
        ("accept_candidate", "Accept the top candidate", "a", top is not None),
        ("link", "Link by arXiv id or DOI", "l", True),
        ("no_canonical_record", "No canonical record (software, web page, book)", "n", True),
        ("set_state", "Set a state", "s", True),
        ("correct", "Correct what the reference says", "c", True),
        (
            "apply_same_text",
            f"Apply this decision to {same_text} with the same text",
            "",
            bool(same_text),
        ),
        ("split", "Split into several references", "", True),
        ("accept_proposal", "Accept the resolver's verdict (unpins)", "", proposal),
        ("unpin", "Unpin: hand back to the resolver", "", obj.pinned),
        ("retire", "Retire as junk", "x", obj.retired_at is None),
    ]
    return [(action, label, key) for action, label, key, shown in offered if shown]


def observation_page_context(
    obj: Observation,
    *,
    can_change: bool,
    with_proposal: bool = False,
    bound: forms.Form | None = None,
    action: str | None = None,
    conflict: bool = False,
    refused: CurationError | None = None,
) -> dict[str, Any]:
    """Return the template context of the observation page, in five parts: the reference and
    its parse, the ranked candidates, the resolver's other view, the decision panel, the record.

    With `conflict`, the `bound` decision was refused on an older revision: it is shown in the
    conflict panel beside the current values instead of in its form. A `refused` decision that
    needs a confirmation, or a work fetched first, comes back with that offer.
    """
    candidates = candidates_part(obj)
    resolver = resolver_part(obj, with_proposal=with_proposal)
    return {
        **reference_part(obj),
        **candidates,
        **resolver,
        **decision_part(
            obj,
            top=candidates["top"],
            resolver_offers=bool(resolver["disagreement"] or resolver["proposal"]),
            bound=bound,
            action=action,
            conflict=conflict,
            refused=refused,
        ),
        **record_part(obj),
        "can_change": can_change,
    }


def reference_part(obj: Observation) -> dict[str, Any]:
    """Return what the reference says: the observation, its parse, repairs and stored evidence."""
    resolution = getattr(obj, "resolution", None)
    evidence = resolution.evidence if resolution else {}
    parsed = _parse(obj)
    repairs = (
        (parsed or {}).get("repairs")
        or (evidence.get("repairs") if isinstance(evidence, dict) else None)
        or []
    )
    return {
        "observation": obj,
        "described": described(obj),
        "resolution": resolution,
        "status": resolution.status if resolution else "unresolved",
        "parsed": parsed,
        "parsed_fields": [
            (k, parsed[k])
            for k in PARSED_FIELDS_SHOWN
            if parsed and parsed.get(k) not in (None, "")
        ],
        "identifiers": json.dumps((parsed or {}).get("identifiers") or {}, ensure_ascii=False),
        "repairs": repairs,
        "evidence_json": json.dumps(evidence, indent=2, sort_keys=True, ensure_ascii=False),
        "decision_note": evidence.get("decision") if isinstance(evidence, dict) else None,
        "doi_link": _doi_link(obj, resolution),
        "group_note": group_note(obj),
    }


def _doi_link(obj: Observation, resolution: Any) -> str | None:
    """Return the DOI the observation is linked to by a verified DOI verdict or decision (what
    "linked to" names when no arXiv paper is linked), else None."""
    verified = resolution is not None and resolution.status in VERIFIED_STATUSES
    by_doi = verified and resolution.resolver_source == ResolverSource.DOI
    return obj.work_doi if by_doi and obj.work_doi else None


def candidates_part(obj: Observation) -> dict[str, Any]:
    """Return the ranked candidates, the top one offered to accept, and when to confirm."""
    candidates, candidates_from = ranked_candidates(obj)
    top = next((c for c in candidates if acceptable(c)), None)
    return {
        "candidates": candidates,
        # (candidate, offered to accept, accepting it needs a confirmation)
        "candidate_rows": [(c, acceptable(c), needs_confirmation(c)) for c in candidates],
        "candidates_from": candidates_from,
        "top": top,
        "top_candidate": top.identifier if top else "",
        "top_why": why_confirm(top) if top and needs_confirmation(top) else "",
        "confirm_below": threshold(),
    }


def resolver_part(obj: Observation, *, with_proposal: bool) -> dict[str, Any]:
    """Return the resolver's stored disagreement with a pin, and its proposal when asked."""
    return {
        "disagreement": stored_disagreement(obj),
        "proposal": _proposal(obj) if with_proposal else None,
    }


def decision_part(
    obj: Observation,
    *,
    top: Any,
    resolver_offers: bool,
    bound: forms.Form | None,
    action: str | None,
    conflict: bool,
    refused: CurationError | None,
) -> dict[str, Any]:
    """Return the decision panel: the decisions offered, the one open, its forms, errors and
    offers (confirm a low score, fetch a missing work), and the conflict panel."""
    same_text = _same_text(obj)
    choices = _choices(obj, top, len(same_text), resolver_offers)
    typing = bound if bound is not None and not conflict else None  # a form shown as typed
    kept_reason = typing is not None and (typing.errors or refused is not None)
    return {
        "choices": choices,
        "decide_action": _open_decision(choices, action),
        "decide_errors": _error_lines(typing.errors) if typing is not None else [],
        "typed_reason": typing.data.get("reason", "") if kept_reason and typing is not None else "",
        "confirm": _confirmation(refused, bound),
        "fetch_offer": _fetch_offer(refused, bound),
        "state_keys": [
            (n, label.split(" · ", 1)[-1]) for n, (_, label) in enumerate(STATE_CHOICES, 1)
        ],
        "same_text_count": len(same_text),
        "forms": _forms(obj, None if conflict else bound, action, same_text),
        "conflict": conflict_for(action, DECISIONS[action].label, bound, obj, same_text)
        if conflict and bound is not None and action
        else None,
    }


def _same_text(obj: Observation) -> list[Observation]:
    """Return the other live observations with the same text (id and revision only)."""
    if not obj.normalized_text:
        return []
    return list(same_text_observations(obj).only("id", "revision"))


def _open_decision(choices: list[tuple[str, str, str]], action: str | None) -> str:
    """Return the decision the Decide form opens on: the one posted if offered, else the first.

    A refused fetch-and-link comes back in the Link decision it was offered from.
    """
    offered = [c[0] for c in choices]
    shown = "link" if action == "fetch_link" else action
    return shown if shown in offered else offered[0]


def _error_lines(errors: Any) -> list[str]:
    """Return a form's errors as lines: the form's own as they are, a field's after its name."""
    return [
        str(e) if name == "__all__" else f"{name.replace('_', ' ')}: {e}"
        for name, messages in errors.items()
        for e in messages
    ]


def record_part(obj: Observation) -> dict[str, Any]:
    """Return the observation as the v1 record shows it, the links out, and its last changes."""
    links = record_links(obj.paper.arxiv_id)
    return {
        "v1_json": json.dumps(observation_v1(obj), indent=2, sort_keys=True, ensure_ascii=False),
        "record_url": links["html"],
        "record_json_url": links["json"],
        "evidence_url": f"/evidence?observation={obj.pk}",
        "recent_changes": observation_changes(obj.pk)[:RECENT_CHANGES],
    }


def _confirmation(refused: CurationError | None, bound: forms.Form | None) -> Any:
    """Return what the confirmation panel re-posts for a low-score accept, or None."""
    if not isinstance(refused, NeedsConfirmation) or bound is None:
        return None
    return {
        "why": why_confirm(refused.candidate),
        "identifier": refused.candidate.identifier,
        "revision": bound.data.get("revision", ""),
        "reason": bound.data.get("reason", ""),
        "next": bool(bound.data.get("_next")),
    }


def _fetch_offer(refused: CurationError | None, bound: forms.Form | None) -> Any:
    """Return the fetch-and-link offer for a work missing from the catalogues, or None.

    Offline there is no offer: the refusal itself says that nothing can be fetched.
    """
    if bound is None or not (
        (isinstance(refused, NotCatalogued) and not refused.offline)
        or isinstance(refused, FetchFailed)
    ):
        return None
    identifier = bound.cleaned_data.get("identifier") if hasattr(bound, "cleaned_data") else None
    if not identifier:
        return None
    scheme, value = identifier
    return {
        "identifier": f"arXiv:{value}" if scheme == "arxiv" else f"doi:{value}",
        "revision": bound.data.get("revision", ""),
        "source": source_of(identifier),
        "reason": bound.data.get("reason", ""),
        "next": bool(bound.data.get("_next")),
        "retry": isinstance(refused, FetchFailed),
    }


def _proposal(obj: Observation) -> Any:
    try:
        return propose(obj)
    except Exception as exc:  # noqa: BLE001 - the page still shows, with the failure
        return {"error": repr(exc)}
