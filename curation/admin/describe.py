"""The best text we have for a reference, for every list a curator reads (queue, bulk confirm)."""

from __future__ import annotations

from curation.models import Observation

RAW_SHOWN = 110


def described(obj: Observation) -> str:
    """Return what the reference says it cites: title, year and identifiers, as one line."""
    parts = [f"“{obj.work_title}”" if obj.work_title else ""]
    parts.append(str(obj.work_year) if obj.work_year else "")
    if obj.work_arxiv_id or obj.work_pith_arxiv_id:
        parts.append(f"arXiv:{obj.work_arxiv_id or obj.work_pith_arxiv_id}")
    if obj.work_doi:
        parts.append(f"doi:{obj.work_doi}")
    if obj.work_venue:
        parts.append(obj.work_venue)
    return ", ".join(p for p in parts if p)


def best_text(obj: Observation, limit: int = RAW_SHOWN) -> tuple[str, bool]:
    """Return the reference's raw text, or else what an imported record described, and which.

    The flag is True for raw text. An imported row carries no raw text but often a title, a
    year and an arXiv id: that is what a curator needs to decide, not "no raw text".
    """
    text, raw = (obj.raw_text, True) if obj.raw_text else (described(obj), False)
    text = text or "(the reference says nothing: no text, title or identifier)"
    return (text if len(text) <= limit else text[: limit - 1] + "…"), raw
