"""A curator's change shows in the record at once, and re-imports keep decisions."""

from __future__ import annotations

from typing import Any

import jsonschema
from django.test import Client

from curation.models import Observation
from curation.services import reference_list_import

from .conftest import CITING, IMPORTER, REFERENCES, Listed
from .helpers import decide, fresh, record


def _schema() -> dict[str, Any]:
    from curation.record.schema import RECORD_SCHEMA

    return RECORD_SCHEMA


def test_the_record_reflects_a_decision_at_once_and_stays_valid_v1(resolved: Any, alice: Client) -> None:
    before = record(alice, CITING)
    decide(alice, resolved[1], "accept_candidate", identifier="arXiv:2301.00002", reason="v2")
    after = record(alice, CITING)
    assert after["context_digest"] != before["context_digest"]
    item = next(o for o in after["outbound"] if o["observation_id"] == str(resolved[1].pk))
    assert item["resolution"]["status"] == "verified_exact"
    assert item["resolution"]["resolver_source"] == "local_arxiv"
    assert item["citation"]["cited_paper"]["arxiv_id"] == "2301.00002"
    assert item["citation"]["cited_work"]["pith_arxiv_id"] == "2301.00002"
    jsonschema.validate(after, _schema())
    page = alice.get(f"/paper/{CITING}/citation-record").content.decode()
    assert "2301.00002" in page


def test_a_reimported_list_keeps_decisions_of_unchanged_references(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[3], "set_state", status="parse_uncertain", reason="artefact")
    decide(alice, resolved[2], "link", identifier="2302.00003", reason="checked")
    shifted = ["A new first reference. 2024.", *REFERENCES[1:]]
    reference_list_import(arxiv_id=CITING, references=[Listed(n, str(n), r) for n, r in enumerate(shifted, 1)],
                          actor=IMPORTER, reason="corrected list")
    kept = fresh(resolved[2])
    assert kept.pinned and kept.cited_paper.arxiv_id == "2302.00003"
    assert fresh(resolved[3]).resolution.status == "parse_uncertain"
    assert fresh(resolved[1]).retired_at is not None  # its text disappeared
    assert Observation.objects.filter(paper__arxiv_id=CITING, retired_at__isnull=True).count() == 4
