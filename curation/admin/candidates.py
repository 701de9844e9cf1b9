"""Ranked candidates read from a resolution's stored evidence, whatever shape it has."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CandidateView:
    """One candidate as the curator sees it."""

    rank: int
    source: str
    arxiv_id: str | None
    doi: str | None
    title: str
    years: str
    first_author: str
    score: float | None
    checks: dict[str, str]

    @property
    def identifier(self) -> str:
        """Return the identifier accepting this candidate links."""
        return f"arXiv:{self.arxiv_id}" if self.arxiv_id else f"doi:{self.doi}" if self.doi else ""


def _score(raw: Any) -> float | None:
    try:
        return float(raw)
    except (TypeError, ValueError):
        return None


def _years(raw: Any) -> str:
    if isinstance(raw, list | tuple):
        return ", ".join(str(y) for y in raw)
    return "" if raw is None else str(raw)


def candidates_from_evidence(evidence: Any) -> list[CandidateView]:
    """Return the evidence's candidates best first; entries that are not dicts are skipped."""
    raw = evidence.get("candidates") if isinstance(evidence, dict) else None
    if not isinstance(raw, list):
        return []
    items = [c for c in raw if isinstance(c, dict) and (c.get("arxiv_id") or c.get("doi"))]
    items.sort(key=lambda c: -(_score(c.get("score")) or 0.0))
    return [
        CandidateView(
            rank=n,
            source=str(c.get("source") or ""),
            arxiv_id=c.get("arxiv_id") or None,
            doi=c.get("doi") or None,
            title=str(c.get("title") or ""),
            years=_years(c.get("years", c.get("year"))),
            first_author=str(c.get("first_author") or ""),
            score=_score(c.get("score")),
            checks={
                k.removesuffix("_check"): str(v)
                for k, v in c.items()
                if k.endswith("_check") and v is not None
            },
        )
        for n, c in enumerate(items, 1)
    ]


def top_candidate(evidence: Any) -> CandidateView | None:
    """Return the best candidate, or None."""
    found = candidates_from_evidence(evidence)
    return found[0] if found else None
