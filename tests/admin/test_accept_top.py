"""Accepting a candidate from the observation page (issue 26): a low score needs a confirmation
that says why, enforced by the server; a score of 0 is never offered; every saved decision's
message carries a one-click undo; a work missing from the catalogues is offered for fetching."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db.models import F
from django.test import Client
from django.utils import timezone

from curation.admin.undo import UNDO_REASON
from curation.audit import Actor, audited
from curation.models import Observation, Paper, Resolution
from curation.services import reference_list_import

from .conftest import IMPORTER, Listed
from .helpers import decide, fresh, last_context, page_url

ATTENTION, RESNET, NOTHING = "1706.03762", "1512.03385", "2001.00001"
LOW_CITING = "2502.00026"


def low_score_reference() -> Observation:
    """Return a reference to ResNet whose stored candidates rank the wrong paper first.

    The evidence is written as the resolver would store it (raw scores: 9.5 is 9 of 100).
    """
    now = timezone.now()
    for arxiv_id, title in ((LOW_CITING, "Citing"), (ATTENTION, "Attention Is All You Need"),
                            (RESNET, "Deep Residual Learning for Image Recognition"), (NOTHING, "Unrelated")):
        Paper.objects.create(arxiv_id=arxiv_id, title=title, in_catalogue=arxiv_id != LOW_CITING,
                             submitted_at=now, last_updated=now, latest_version=1)  # fmt: skip
    reference_list_import(
        arxiv_id=LOW_CITING,
        references=[Listed(1, "1", "K. He et al. Deep residual learning for image recognition. CVPR 2016.")],
        actor=IMPORTER,
        reason="test reference list",
    )
    observation = Observation.objects.get(paper__arxiv_id=LOW_CITING)
    candidates = [
        {"source": "local_arxiv", "arxiv_id": ATTENTION, "title": "Attention Is All You Need",
         "title_similarity": 21.0, "year_check": "contradicts", "author_check": "contradicts", "score": 9.5},
        {"source": "local_arxiv", "arxiv_id": NOTHING, "title": "Unrelated", "title_similarity": 4.0, "score": -40.0},
    ]  # fmt: skip
    resolver_verdict(observation, {"candidates": candidates})
    return Observation.objects.get(pk=observation.pk)


def resolver_verdict(observation: Observation, evidence: dict[str, Any]) -> None:
    """Write an unresolved verdict with this evidence as the resolver does (a new revision)."""
    with audited(Actor.command("test"), "candidates as the resolver stores them"):
        Resolution.objects.create(observation=observation, status="unresolved", resolver_source="local_arxiv",
                                  observed_at=timezone.now(), evidence=evidence)  # fmt: skip
        Observation.objects.filter(pk=observation.pk).update(revision=F("revision") + 1)


@pytest.fixture
def low(db: Any) -> Observation:
    return low_score_reference()


def undo_form(body: str) -> dict[str, str]:
    """Return the fields of the Undo form in a page's messages."""
    form = re.search(r'<form method="post" action="([^"]+)" class="cr-undo">(.*?)</form>', body, re.S)
    assert form, "no Undo form in the messages"
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form.group(2)))
    fields.pop("csrfmiddlewaretoken")
    return {"url": form.group(1), **fields}


def test_a_low_score_accept_is_refused_without_confirmation_and_says_why(low: Observation, alice: Client) -> None:
    before = fresh(low)
    response = decide(alice, low, "accept_candidate", top_candidate=f"arXiv:{ATTENTION}",
                      reason="candidate checked: same work", _next="1")  # fmt: skip
    body = response.content.decode()
    assert response.status_code == 400
    assert "scores 9 of 100, below 87" in body and "contradicts: year, author" in body
    assert 'id="cr-confirm"' in body and 'name="confirm_low_score" value="1"' in body
    after = fresh(low)
    assert after.revision == before.revision and after.cited_paper is None and not after.pinned


def test_a_confirmed_low_score_accept_links(low: Observation, alice: Client) -> None:
    response = decide(alice, low, "accept_candidate", candidate=f"arXiv:{ATTENTION}", confirm_low_score="1",
                      reason="the citing paper really means the transformer")  # fmt: skip
    assert response.status_code == 302
    assert fresh(low).cited_paper.arxiv_id == ATTENTION
    # The candidate's own Accept button moves on, as the `a` key does (issue 41 item 4).
    assert not response["Location"].startswith(page_url(low))


def test_a_score_of_zero_is_never_offered_nor_accepted(low: Observation, alice: Client) -> None:
    body = alice.get(page_url(low)).content.decode()
    assert f'value="arXiv:{ATTENTION}">Accept …' in body
    assert f'value="arXiv:{NOTHING}"' not in body and "no match" in body
    response = decide(alice, low, "accept_candidate", candidate=f"arXiv:{NOTHING}", confirm_low_score="1", reason="x")
    assert response.status_code == 400 and "scores 0 of 100" in response.content.decode()
    assert fresh(low).cited_paper is None


def test_only_a_candidate_of_the_reference_can_be_accepted(low: Observation, alice: Client) -> None:
    response = decide(alice, low, "accept_candidate", candidate=f"arXiv:{RESNET}", confirm_low_score="1", reason="x")
    assert response.status_code == 400 and "not one of this reference" in response.content.decode()
    assert fresh(low).cited_paper is None


def test_a_high_score_accept_needs_no_confirmation(resolved: Any, alice: Client) -> None:
    body = alice.get(page_url(resolved[1])).content.decode()
    assert 'id="cr-top-low"' not in body
    response = decide(alice, resolved[1], "accept_candidate", top_candidate="arXiv:2301.00001", reason="same work")
    assert response.status_code == 302 and fresh(resolved[1]).cited_paper.arxiv_id == "2301.00001"


def test_undo_restores_the_previous_state_with_reason_undo(resolved: Any, alice: Client) -> None:
    observation = resolved[3]
    before = fresh(observation)
    decide(alice, observation, "set_state", status="parse_uncertain", reason="a BibTeX artefact")
    assert fresh(observation).resolution.status == "parse_uncertain"
    fields = undo_form(alice.get(page_url(observation)).content.decode())
    assert fields["to_revision"] == str(before.revision) and fields["reason"] == UNDO_REASON
    response = alice.post(fields.pop("url"), fields)
    assert response.status_code == 302
    now = fresh(observation)
    assert now.resolution.status == before.resolution.status and now.pinned == before.pinned
    assert last_context(now)["reason"] == "undo" and last_context(now)["actor"] == "user:alice"


def test_undo_of_a_link_is_not_stopped_by_its_notice_check(resolved: Any, alice: Client) -> None:
    observation = resolved[2]
    before = fresh(observation)
    decide(alice, observation, "link", identifier="2302.00003", reason="the checkpointing paper")
    fields = undo_form(alice.get(page_url(observation)).content.decode())
    # The notice check that follows a link gives the reference a new revision, nothing else.
    with audited(Actor.task("refresh_works", None), "standing notices of newly linked works"):
        Observation.objects.filter(pk=observation.pk).update(revision=F("revision") + 1)
    response = alice.post(fields.pop("url"), fields)
    assert response.status_code == 302
    now = fresh(observation)
    assert now.cited_paper is None and now.resolution.status == before.resolution.status == "metadata_mismatch"
    assert last_context(now)["reason"] == "undo"


def test_undo_is_refused_when_someone_changed_the_reference_since(resolved: Any, alice: Client, bob: Client) -> None:
    observation = resolved[3]
    decide(alice, observation, "set_state", status="parse_uncertain", reason="a BibTeX artefact")
    fields = undo_form(alice.get(page_url(observation)).content.decode())
    decide(bob, observation, "retire", reason="junk")
    changed = fresh(observation)
    response = alice.post(fields.pop("url"), fields)
    assert response.status_code == 409 and 'id="cr-conflict"' in response.content.decode()
    assert fresh(observation).revision == changed.revision and fresh(observation).retired_at is not None


def test_a_missing_arxiv_id_is_offered_for_fetching_unless_offline(resolved: Any, alice: Client, settings: Any) -> None:
    settings.CITEREC_OFFLINE = False
    response = decide(alice, resolved[2], "link", identifier="arXiv:2303.08774", reason="the GPT-4 report")
    body = response.content.decode()
    assert response.status_code == 400 and 'id="cr-fetch"' in body and "Fetch from arXiv and link" in body
    assert 'value="the GPT-4 report"' in body  # the reason typed is kept
    settings.CITEREC_OFFLINE = True
    response = decide(alice, resolved[2], "link", identifier="arXiv:2303.08774", reason="the GPT-4 report")
    body = response.content.decode()
    assert response.status_code == 400 and 'id="cr-fetch"' not in body
    assert "citerec is offline (CITEREC_OFFLINE=1), so it cannot be fetched from arXiv" in body
    assert fresh(resolved[2]).cited_paper is None


def test_the_state_keys_and_the_retire_key_are_shown(resolved: Any, alice: Client) -> None:
    body = alice.get(page_url(resolved[3])).content.decode()
    legend = re.search(r'id="cr-state-keys">(.*?)</span>', body, re.S)
    assert legend and re.sub(r"<[^>]+>|\s+", " ", legend.group(1)).split() == [
        "1", "metadata", "mismatch", "2", "unresolved", "3", "malformed", "identifier", "4", "parse", "uncertain",
    ]  # fmt: skip
    assert re.search(r'id="cr-do-retire"[^>]*> Retire as junk <kbd>x</kbd>', body)
    assert 'id="cr-retire-confirm"' in body
