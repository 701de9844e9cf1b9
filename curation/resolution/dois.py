"""Whether a DOI names a known work: the rule every DOI link (admin, bulk, API) goes through.

A curator may link a reference only to a DOI citerec can describe: an arXiv DOI of a paper in
the local catalogue, a work in the local Crossref catalogue, or (online) a work Crossref knows.
Crossref is asked outside any transaction (a slow answer must not hold row locks), and what it
answers is returned, not stored: the decision service keeps it in the local catalogue in the
transaction that writes the link.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from curation.catalogue import records as catalogue
from curation.models import Paper
from curation.references.identifiers import arxiv_id_from_doi, canonical_doi, doi_key


@dataclass(frozen=True)
class DoiCheck:
    """Whether a DOI is known, how, and the Crossref work to keep when Crossref told."""

    known: bool
    how: str
    crossref_work: dict[str, Any] | None = None


def doi_check(doi: str) -> DoiCheck:
    """Return whether the DOI is known (catalogues, then Crossref when online) and how."""
    doi = canonical_doi(doi) or doi_key(doi)
    if arxiv_id := arxiv_id_from_doi(doi):
        known = Paper.objects.filter(arxiv_id__iexact=arxiv_id).exists()
        how = "arXiv DOI of a known paper" if known else "arXiv DOI of an unknown paper"
        return DoiCheck(known, how)
    if catalogue.works_by_doi([doi]):
        return DoiCheck(True, "found in the local catalogue")
    if settings.CITEREC_OFFLINE:
        return DoiCheck(False, "not in the local catalogue (offline: Crossref not asked)")
    from curation.clients.crossref import CrossrefError, get_client

    try:
        message = get_client().work(doi)
    except CrossrefError as exc:
        return DoiCheck(False, f"not in the local catalogue; Crossref unavailable ({exc})")
    if message is None:
        return DoiCheck(False, "not found in the local catalogue nor on Crossref")
    return DoiCheck(True, "found on Crossref", crossref_work=message)
