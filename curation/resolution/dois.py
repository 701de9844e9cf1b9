"""Whether a DOI names a known work: the rule every DOI link (admin, bulk, API) goes through.

A curator may link a reference only to a DOI citerec can describe: an arXiv DOI of a paper in
the local catalogue, a work in the local Crossref catalogue, or (online) a work Crossref knows,
which is then kept in the local catalogue. Crossref is asked outside any transaction: a slow
answer must not hold row locks.
"""

from __future__ import annotations

from django.conf import settings

from curation.models import Paper
from curation.references.identifiers import arxiv_id_from_doi, canonical_doi
from curation.resolution import catalogue


def doi_check(doi: str) -> tuple[bool, str]:
    """Return whether the DOI is known (catalogues, then Crossref when online) and how."""
    doi = canonical_doi(doi) or doi.strip().lower()
    if arxiv_id := arxiv_id_from_doi(doi):
        known = Paper.objects.filter(arxiv_id__iexact=arxiv_id).exists()
        return known, "arXiv DOI of a known paper" if known else "arXiv DOI of an unknown paper"
    if catalogue.works_by_doi([doi]):
        return True, "found in the local catalogue"
    if settings.CITEREC_OFFLINE:
        return False, "not in the local catalogue (offline: Crossref not asked)"
    from curation.crossref import CrossrefError, get_client
    from curation.resolution.importers import store_crossref_works

    try:
        message = get_client().work(doi)
    except CrossrefError as exc:
        return False, f"not in the local catalogue; Crossref unavailable ({exc})"
    if message is None:
        return False, "not found in the local catalogue nor on Crossref"
    store_crossref_works([message])
    return True, "found on Crossref"
