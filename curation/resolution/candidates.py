"""Ranked candidates read from a resolution's stored evidence, whatever shape it has, and the one
0-100 scale every curator screen shows their scores on (`score_0_100`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from curation.resolution.scoring import FUZZY_THRESHOLD as TITLES_AGREE

# The resolver's raw score (curation/resolution/scoring.py) is the title similarity (0-100)
# plus 3 for an agreeing first author, 2 for an agreeing year and 1 for an agreeing venue, less
# 30 for a contradicting author and 20 for a contradicting year: from -50 to 106. Imported
# records carry other systems' scores on their own scales (e.g. -24.4, 105).
RAW_SCORE_MAX = 106.0


def score_0_100(raw: Any) -> int | None:
    """Return a candidate's score on the curator's 0-100 scale, or None when it has none.

    100 is the same title with author, year and venue agreeing; a contradicted author or year
    drops it by 28 or 19 points; anything the raw scale puts below 0 shows as 0 and anything
    above its top as 100. Every screen that shows or compares a score uses this function.
    """
    value = _score(raw)
    if value is None:
        return None
    return max(0, min(100, round(value * 100 / RAW_SCORE_MAX)))


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
    score: int | None  # 0-100 (score_0_100)
    checks: dict[str, str]
    raw_score: float | None = None

    @property
    def url(self) -> str:
        """Return where the candidate can be opened: its arXiv page or its DOI."""
        if self.arxiv_id:
            return f"https://arxiv.org/abs/{self.arxiv_id}"
        return f"https://doi.org/{self.doi}" if self.doi else ""

    @property
    def agreed(self) -> list[str]:
        """Return the fields that agreed with the reference (title, author, year, venue)."""
        return [k for k, v in self.checks.items() if v.startswith("agrees")]

    @property
    def contradicted(self) -> list[str]:
        """Return the fields that contradicted the reference."""
        return [k for k, v in self.checks.items() if v == "contradicts"]

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


def _checks(candidate: dict[str, Any]) -> dict[str, str]:
    """Return field -> agrees / contradicts / unknown, the title's included."""
    checks = {
        k.removesuffix("_check"): str(v)
        for k, v in candidate.items()
        if k.endswith("_check") and v is not None
    }
    similarity = _score(candidate.get("title_similarity"))
    if candidate.get("title_exact") is True:
        checks = {"title": "agrees", **checks}
    elif similarity is not None:
        agrees = "agrees, " if similarity >= TITLES_AGREE else ""
        checks = {"title": f"{agrees}{similarity:g}% alike", **checks}
    return checks


def candidates_from_evidence(evidence: Any) -> list[CandidateView]:
    """Return the evidence's candidates best first; entries that are not dicts are skipped."""
    raw = evidence.get("candidates") if isinstance(evidence, dict) else None
    if not isinstance(raw, list):
        return []
    items = [c for c in raw if isinstance(c, dict) and (c.get("arxiv_id") or c.get("doi"))]
    items.sort(key=lambda c: -(_score(c.get("score")) or 0.0))
    return [candidate_view(c, n) for n, c in enumerate(items, 1)]


def candidate_view(c: dict[str, Any], rank: int = 1) -> CandidateView:
    """Return one candidate (a dict as stored in the evidence) as the curator sees it."""
    return CandidateView(
        rank=rank,
        source=str(c.get("source") or ""),
        arxiv_id=c.get("arxiv_id") or None,
        doi=c.get("doi") or None,
        title=str(c.get("title") or ""),
        years=_years(c.get("years", c.get("year"))),
        first_author=str(c.get("first_author") or ""),
        score=score_0_100(c.get("score")),
        checks=_checks(c),
        raw_score=_score(c.get("score")),
    )


def top_candidate(evidence: Any) -> CandidateView | None:
    """Return the best candidate, or None."""
    found = candidates_from_evidence(evidence)
    return found[0] if found else None


def agreement(candidate: CandidateView) -> str:
    """Return which fields agreed and which contradicted, in words ("agrees: title, year")."""
    parts = []
    if candidate.agreed:
        parts.append("agrees: " + ", ".join(candidate.agreed))
    if candidate.contradicted:
        parts.append("contradicts: " + ", ".join(candidate.contradicted))
    return "; ".join(parts) or "no field checked"
