"""The observation page's context in its parts: what the reference says, the candidates, the
resolver's other view, the decision panel and the record; and the reads they go through."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from curation.admin import page
from curation.models import Paper
from curation.resolution.selectors import Proposal, propose
from curation.selectors import same_text_observations
from curation.services import reference_list_import

from .conftest import IMPORTER, REFERENCES, Listed
from .helpers import fresh


def test_the_context_is_its_parts_with_no_key_in_two(resolved: Any) -> None:
    obj = fresh(resolved[1])
    candidates = page.candidates_part(obj)
    resolver = page.resolver_part(obj, with_proposal=False)
    parts = [
        page.reference_part(obj),
        candidates,
        resolver,
        page.decision_part(
            obj,
            top=candidates["top"],
            resolver_offers=False,
            bound=None,
            action=None,
            conflict=False,
            refused=None,
        ),  # fmt: skip
        page.record_part(obj),
    ]
    keys = [k for part in parts for k in part]
    assert len(keys) == len(set(keys))
    context = page.observation_page_context(obj, can_change=True)
    assert set(context) == {*keys, "can_change"}


def test_reference_part_shows_the_parse_and_its_repairs(resolved: Any) -> None:
    part = page.reference_part(fresh(resolved[4]))
    assert "url_space" in {r["kind"] for r in part["repairs"]}
    assert ("kind", part["parsed"]["kind"]) in part["parsed_fields"]
    assert part["status"] == part["resolution"].status


def test_candidates_part_offers_the_top_candidate_of_a_tie(resolved: Any) -> None:
    part = page.candidates_part(fresh(resolved[1]))
    assert {c.identifier for c in part["candidates"]} >= {"arXiv:2301.00001", "arXiv:2301.00002"}
    assert part["top_candidate"] == part["top"].identifier
    assert [row[0] for row in part["candidate_rows"]] == part["candidates"]


def test_resolver_part_proposes_only_when_asked(resolved: Any) -> None:
    obj = fresh(resolved[2])
    assert page.resolver_part(obj, with_proposal=False) == {"disagreement": None, "proposal": None}
    proposal = page.resolver_part(obj, with_proposal=True)["proposal"]
    assert isinstance(proposal, Proposal) and proposal.status == "metadata_mismatch"


def test_a_proposal_is_a_read(resolved: Any) -> None:
    obj = fresh(resolved[2])
    assert propose(obj).status == obj.resolution.status
    assert fresh(resolved[2]).revision == obj.revision


def test_decision_part_opens_the_posted_decision_if_offered(resolved: Any) -> None:
    obj = fresh(resolved[3])

    def opened(action: str | None, top: Any) -> str:
        return page.decision_part(obj, top=top, resolver_offers=False, bound=None, action=action,
                                  conflict=False, refused=None)["decide_action"]  # fmt: skip

    top = object()  # any top candidate puts "accept_candidate" first
    assert opened(None, top) == "accept_candidate"
    assert opened("fetch_link", top) == "link"  # a refused fetch comes back in the Link form
    assert opened("retire", top) == "retire"
    assert opened("accept_candidate", None) == "link"  # no top candidate: not offered


def test_error_lines_name_the_field() -> None:
    errors = {"__all__": ["Refused."], "work_year": ["Enter a year."]}
    assert page._error_lines(errors) == ["Refused.", "work year: Enter a year."]


def test_same_text_observations_are_the_other_live_ones(resolved: Any) -> None:
    now = timezone.now()
    Paper.objects.create(
        arxiv_id="2502.00001", title="Second", submitted_at=now, last_updated=now, latest_version=1
    )
    reference_list_import(arxiv_id="2502.00001", references=[Listed(1, "1", REFERENCES[0])],
                          actor=IMPORTER, reason="same text elsewhere")  # fmt: skip
    obj = fresh(resolved[1])
    others = list(same_text_observations(obj))
    assert [o.paper.arxiv_id for o in others] == ["2502.00001"]
    assert list(same_text_observations(others[0])) == [obj]
    assert page.decision_part(obj, top=None, resolver_offers=False, bound=None, action=None,
                              conflict=False, refused=None)["same_text_count"] == 1  # fmt: skip


def test_a_doi_link_is_named_under_linked_to_not_as_a_printed_identifier(
    resolved: Any, alice: Any
) -> None:
    """Issue 41 item 4: "linked to" said "nothing" for a DOI link, and the linked DOI showed under
    "identifiers" as if the reference printed it."""
    from curation.audit import Actor, audited
    from curation.models import Observation, Resolution

    from .helpers import page_url

    obj = fresh(resolved[2])
    with audited(Actor.command("test"), "a verified DOI verdict"):
        Observation.objects.filter(pk=obj.pk).update(work_doi="10.5555/linked.1", cited_paper=None)
        Resolution.objects.filter(observation=obj).update(
            status="verified_exact", resolver_source="doi"
        )
    assert page.reference_part(fresh(obj))["doi_link"] == "10.5555/linked.1"
    body = alice.get(page_url(obj)).content.decode()
    linked = body[body.index('id="cr-linked"') :]
    assert (
        linked.split("</td>")[0].count("doi:10.5555/linked.1") == 1
        and "nothing" not in linked.split("</td>")[0]
    )
    identifiers = body[body.index("<th>identifiers</th>") :].split("</tr>")[0]
    assert "10.5555/linked.1" not in identifiers
    # Not verified: no link, the DOI is what the reference printed.
    with audited(Actor.command("test"), "an unresolved verdict"):
        Resolution.objects.filter(observation=obj).update(status="unresolved")
    assert page.reference_part(fresh(obj))["doi_link"] is None
