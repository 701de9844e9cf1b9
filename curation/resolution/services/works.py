"""Canonical cited works: the DOI or arXiv id that notices and receipts attach to.

Call these inside the caller's audit context: CitedWork is a tracked model.
"""

from __future__ import annotations

from curation.models import CitedWork, Paper
from curation.references.identifiers import doi_key


def work_for_doi(doi: str, title: str = "") -> CitedWork:
    """Return (creating it if new) the canonical work of a DOI, compared lower-cased."""
    return CitedWork.objects.get_or_create(doi=doi_key(doi), defaults={"title": title})[0]


def work_for_paper(paper: Paper) -> CitedWork:
    """Return (creating it if new) the canonical work of an arXiv paper."""
    return CitedWork.objects.get_or_create(
        arxiv_id=paper.arxiv_id, defaults={"title": paper.title}
    )[0]


def canonical_work(doi: str | None, paper: Paper | None) -> CitedWork | None:
    """Return the work an observation links to: the DOI first, else the arXiv paper, else None."""
    if doi:
        return work_for_doi(doi)
    return work_for_paper(paper) if paper is not None else None
