"""The observation page: everything needed to decide, and every decision through a service."""

from __future__ import annotations

from typing import Any

from django.test import Client

from curation.resolution.models import PinnedDisagreement

from .helpers import decide, fresh, last_context, page_url


def test_page_shows_raw_text_repairs_parse_and_ranked_candidates(resolved: Any, alice: Client) -> None:
    body = alice.get(page_url(resolved[1])).content.decode()
    assert "Silent data corruption in large training runs" in body
    assert "arXiv:2301.00001" in body and "arXiv:2301.00002" in body
    assert "two or more records match equally well" in body
    # One Decide form with one reason box; candidates link out and score on 0-100; a tie is said.
    assert body.count('id="cr-decide"') == 1 and body.count('name="reason"') == 1
    assert 'href="https://arxiv.org/abs/2301.00002"' in body and 'id="cr-tie"' in body
    repaired = alice.get(page_url(resolved[4])).content.decode()
    assert "url_space" in repaired and "NVIDIA/Megatron-LM/issues/1611" in repaired


def test_accepting_a_candidate_links_it_and_pins_with_the_reason(resolved: Any, alice: Client) -> None:
    response = decide(alice, resolved[1], "accept_candidate", identifier="arXiv:2301.00002", reason="same authors, v2 cites it")
    assert response.status_code == 302
    observation = fresh(resolved[1])
    assert observation.cited_paper is not None and observation.cited_paper.arxiv_id == "2301.00002"
    assert observation.resolution.status == "verified_exact" and observation.pinned
    context = last_context(observation)
    assert (context["actor"], context["source"]) == ("user:alice", "admin")
    assert context["reason"] == "same authors, v2 cites it" and context["user"] is not None


def test_every_decision_needs_a_reason(resolved: Any, alice: Client) -> None:
    before = fresh(resolved[3])
    response = decide(alice, resolved[3], "set_state", status="parse_uncertain", reason="  ")
    assert response.status_code == 400
    assert fresh(resolved[3]).revision == before.revision


def test_linking_an_arxiv_id_fixes_a_mismatch(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[2], "link", identifier="https://arxiv.org/abs/2302.00003v2", reason="title is the checkpointing paper")
    observation = fresh(resolved[2])
    assert observation.resolution.status == "verified_exact"
    assert observation.cited_paper is not None and observation.cited_paper.arxiv_id == "2302.00003"


def test_an_unknown_identifier_is_refused_before_anything_is_saved(resolved: Any, alice: Client, settings: Any) -> None:
    settings.CITEREC_OFFLINE = True
    before = fresh(resolved[2]).revision
    response = decide(alice, resolved[2], "link", identifier="10.9999/nowhere.1", reason="try")
    assert response.status_code == 400 and "not saved" in response.content.decode()
    response = decide(alice, resolved[2], "link", identifier="2399.99999", reason="try")
    assert response.status_code == 400
    assert fresh(resolved[2]).revision == before


def test_a_known_doi_links_as_a_doi_record(resolved: Any, alice: Client) -> None:
    from curation.resolution.services.catalogue_imports import store_crossref_works

    store_crossref_works([{"DOI": "10.1000/ckpt.1", "title": ["Checkpointing for fault tolerant deep learning"]}])
    decide(alice, resolved[2], "link", identifier="doi:10.1000/CKPT.1", reason="published version")
    observation = fresh(resolved[2])
    assert observation.resolution.resolver_source == "doi" and observation.work_doi == "10.1000/ckpt.1"


def test_set_state_no_record_correct_and_retire(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[3], "set_state", status="parse_uncertain", reason="BibTeX artefact")
    assert fresh(resolved[3]).resolution.status == "parse_uncertain"
    decide(alice, resolved[4], "no_canonical_record", reason="a GitHub issue")
    assert fresh(resolved[4]).no_canonical_record
    decide(alice, resolved[1], "correct", work_title="Silent data corruption", work_year="2022",
           work_venue="", reference_index="7", reason="typo in the list")
    observation = fresh(resolved[1])
    assert (observation.work_title, observation.work_year, observation.reference_index) == ("Silent data corruption", 2022, 7)
    decide(alice, resolved[3], "retire", reason="junk")
    assert fresh(resolved[3]).retired_at is not None


def test_rerun_shows_a_proposal_and_writes_nothing(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[2], "link", identifier="2302.00003", reason="checked")
    revision = fresh(resolved[2]).revision
    body = alice.get(page_url(resolved[2]) + "?rerun=1").content.decode()
    assert "Resolver proposal" in body and "metadata_mismatch" in body
    assert fresh(resolved[2]).revision == revision


def test_accepting_the_proposal_unpins_and_writes_the_verdict(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[2], "link", identifier="2302.00003", reason="checked")
    decide(alice, resolved[2], "accept_proposal", reason="resolver was right after all")
    observation = fresh(resolved[2])
    assert not observation.pinned and observation.resolution.status == "metadata_mismatch"
    assert observation.cited_paper is None


def test_a_stored_disagreement_is_shown(resolved: Any, alice: Client) -> None:
    from .conftest import resolve_all

    decide(alice, resolved[2], "link", identifier="2302.00003", reason="checked")
    resolve_all()
    assert PinnedDisagreement.objects.filter(observation=resolved[2]).exists()
    assert "The resolver disagrees with the curator" in alice.get(page_url(resolved[2])).content.decode()
    queue = alice.get("/admin/curation/observation/", {"queue": "disagreements"}).content.decode()
    assert "Checkpointing" in queue


def test_split_makes_one_reference_per_part(resolved: Any, alice: Client) -> None:
    decide(alice, resolved[1], "split", parts="J. Smith. Silent data corruption. 2023.\nA. Ng. Gradient compression at scale. 2023.",
           reason="two works in one entry")
    assert fresh(resolved[1]).retired_at is not None
    assert resolved[1].paper.outbound.filter(retired_at__isnull=True, reference_index=1).count() == 2
