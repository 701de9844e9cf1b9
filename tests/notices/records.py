"""Build and read citation records for the notice tests (through the real import and views)."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client

from curation.audit import Actor
from curation.models import CitedWork, Observation
from curation.services import record_import
from tests import records_factory as rf

IMPORTER = Actor.importer("tests")
CITING = "2412.00001"


def import_citing_record(
    *, dois: list[str | None] = (), arxiv_cited: list[str] = (), citing: str = CITING
) -> dict[str, Any]:
    """Import a record whose references cite these DOIs and arXiv papers; return the document."""
    outbound = []
    for index, doi in enumerate(dois, start=1):
        item = rf.observation(citing, index, title=f"Work {doi}")
        item["citation"]["cited_work"]["doi"] = doi
        outbound.append(item)
    for index, arxiv_id in enumerate(arxiv_cited, start=len(outbound) + 1):
        outbound.append(rf.observation(citing, index, cited=arxiv_id, status="verified_exact"))
    document = rf.reseal(rf.record(citing, outbound))
    record_import(document=document, actor=IMPORTER, reason="test record")
    return document


def work_for(doi: str | None = None, arxiv_id: str | None = None) -> CitedWork:
    """Return the canonical work an imported observation links to."""
    if doi is not None:
        return CitedWork.objects.get(doi=doi.lower())
    return CitedWork.objects.get(arxiv_id=arxiv_id)


def observation_of(work: CitedWork) -> Observation:
    """Return the (single) observation citing a work."""
    return Observation.objects.select_related("standing_notice").get(cited_work=work)


def record_json(arxiv_id: str = CITING) -> dict[str, Any]:
    """Return the record as the public JSON endpoint serves it."""
    response = Client().get(f"/paper/{arxiv_id}/citation-record.json")
    assert response.status_code == 200
    return json.loads(response.content)  # type: ignore[no-any-return]


def record_html(arxiv_id: str = CITING) -> str:
    """Return the record's HTML page."""
    response = Client().get(f"/paper/{arxiv_id}/citation-record")
    assert response.status_code == 200
    return response.content.decode()


def notice_of(record: dict[str, Any], doi: str | None = None, cited: str | None = None) -> Any:
    """Return the v1 standing notice of the observation citing a DOI or an arXiv paper."""
    for item in record["outbound"]:
        citation = item["citation"]
        if doi is not None and (citation["cited_work"] or {}).get("doi") == doi:
            return item["standing_notice"]
        if cited is not None and (citation["cited_paper"] or {}).get("arxiv_id") == cited:
            return item["standing_notice"]
    raise AssertionError(f"no observation cites {doi or cited}")
