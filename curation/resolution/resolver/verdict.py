"""The resolver's decision for one reference, and the version its evidence names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from curation.catalogue.records import Candidate
from curation.states import ResolutionStatus, ResolverSource

RESOLVER_VERSION = "resolver-2.0"
_S = ResolutionStatus


@dataclass
class Verdict:
    """The resolver's decision for one reference, and why."""

    status: ResolutionStatus
    resolver_source: ResolverSource
    evidence: dict[str, Any]
    linked: Candidate | None = None
    cited_paper_arxiv_id: str | None = None  # the arXiv paper a verified DOI belongs to
    score: float | None = None

    @property
    def verified(self) -> bool:
        """Return whether the verdict links a work (only verified states do)."""
        return self.status in (_S.VERIFIED_EXACT, _S.VERIFIED_FUZZY)

    @property
    def arxiv_id(self) -> str | None:
        """Return the arXiv id of the linked record (verified states only)."""
        if not self.verified or self.linked is None:
            return None
        return self.linked.arxiv_id or self.cited_paper_arxiv_id

    @property
    def doi(self) -> str | None:
        """Return the DOI of the linked record (verified states only)."""
        return self.linked.doi if self.verified and self.linked else None
