"""The group queue and a group's page (issue 41): groups listed by what one decision settles,
the queues' rates, one decision for every member, Undo per group, a stale page refused."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from curation.models import Observation, Paper, ReferenceGroup
from tests.services.test_reference_groups import JUNK, SILENT, SILENT_OTHER, cite, group_of_text

pytestmark = pytest.mark.django_db
QUEUE = "/admin/curation/referencegroup/"


def group_url(group: ReferenceGroup) -> str:
    return f"{QUEUE}{group.pk}/change/"


@pytest.fixture
def groups_to_decide(
    django_capture_on_commit_callbacks: Any,
) -> tuple[ReferenceGroup, ReferenceGroup]:
    """The silent-corruption paper cited by three papers, the junk line by two."""
    now = timezone.now()
    Paper.objects.create(
        arxiv_id="2301.00001", title="Silent data corruption in large training runs",
        first_author="smith", year=2023, in_catalogue=True, submitted_at=now,
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        cite("2501.00001", JUNK, SILENT)
        cite("2501.00002", SILENT_OTHER, JUNK)
        cite("2501.00003", SILENT)
    return group_of_text(SILENT), group_of_text(JUNK)


def test_the_queue_lists_groups_by_citations_to_fix_with_rates(
    alice: Client, groups_to_decide: tuple[ReferenceGroup, ReferenceGroup]
) -> None:
    silent, junk = groups_to_decide
    page = alice.get(QUEUE).content.decode()
    links = re.findall(r'href="/admin/curation/referencegroup/(\d+)/change/"', page)
    assert links[:2] == [str(silent.pk), str(junk.pk)]
    assert "Groups to decide" in page
    rates = re.findall(r'<tr class="cr-rate">(.*?)</tr>', page, re.S)
    assert "groups to decide" in rates[0] and "<td>2</td>" in rates[0]
    assert "no decisions yet" in rates[0]


def test_one_decision_from_the_group_page_then_undo(
    alice: Client, groups_to_decide: tuple[ReferenceGroup, ReferenceGroup]
) -> None:
    silent, junk = groups_to_decide
    page = alice.get(group_url(silent)).content.decode()
    assert "Decide 3 references" in page and "silent data corruption" in page.lower()
    response = alice.post(
        group_url(silent),
        {"revision": silent.revision, "decision": "link", "identifier": "arXiv:2301.00001",
         "reason": "the SC paper"},
    )  # fmt: skip
    assert response.status_code == 302
    decided = Observation.objects.filter(raw_text__in=[SILENT, SILENT_OTHER])
    assert decided.count() == 3 and all(o.pinned and o.cited_paper_id for o in decided)
    queue = alice.get(QUEUE).content.decode()
    assert "Decided 3 references of the group at once." in queue
    assert f'id="cr-group-undo-{silent.pk}"' in queue
    links = re.findall(r'href="/admin/curation/referencegroup/(\d+)/change/"', queue)
    assert links[0] == str(junk.pk)  # the decided group left the queue
    silent.refresh_from_db()
    response = alice.post(group_url(silent), {"action": "undo", "revision": silent.revision})
    assert response.status_code == 302
    assert not any(
        o.pinned for o in Observation.objects.filter(raw_text__in=[SILENT, SILENT_OTHER])
    )
    assert (
        "Undid the group decision on 3 references." in alice.get(group_url(silent)).content.decode()
    )


def test_a_stale_group_page_is_refused_with_409_and_nothing_written(
    alice: Client, bob: Client, groups_to_decide: tuple[ReferenceGroup, ReferenceGroup]
) -> None:
    _, junk = groups_to_decide
    shown = junk.revision
    bob.post(
        group_url(junk),
        {"revision": shown, "decision": "no_canonical_record", "reason": "Bob: junk"},
    )
    response = alice.post(
        group_url(junk),
        {"revision": shown, "decision": "set_state", "status": "parse_uncertain", "reason": "late"},
    )
    assert response.status_code == 409
    refused = response.content.decode()
    assert "this group was changed by bob" in refused and "Bob: junk" in refused
    junk_refs = Observation.objects.filter(raw_text=JUNK)
    assert all(o.no_canonical_record for o in junk_refs)


def test_a_link_needs_an_identifier_and_read_only_staff_cannot_decide(
    alice: Client, rita: Client, groups_to_decide: tuple[ReferenceGroup, ReferenceGroup]
) -> None:
    silent, _ = groups_to_decide
    response = alice.post(
        group_url(silent), {"revision": silent.revision, "decision": "link", "reason": "x"}
    )
    assert (
        response.status_code == 400
        and "A link needs an arXiv id or a DOI." in response.content.decode()
    )
    assert "cr-group-decide" not in rita.get(group_url(silent)).content.decode()
    response = rita.post(
        group_url(silent),
        {"revision": silent.revision, "decision": "no_canonical_record", "reason": "x"},
    )
    assert response.status_code == 404
    assert not Observation.objects.filter(pinned=True).exists()


def test_a_reference_page_names_its_group_and_the_decision_proposed_for_it(
    alice: Client,
    groups_to_decide: tuple[ReferenceGroup, ReferenceGroup],
    django_capture_on_commit_callbacks: Any,
) -> None:
    silent, _ = groups_to_decide
    with django_capture_on_commit_callbacks(execute=True):
        alice.post(
            group_url(silent),
            {"revision": silent.revision, "decision": "link", "identifier": "2301.00001",
             "reason": "the SC paper"},
        )  # fmt: skip
        cite("2502.00009", "Smith J. Silent data corruption in large training runs, 2023")
    joined = Observation.objects.get(paper__arxiv_id="2502.00009")
    page = alice.get(f"/admin/curation/observation/{joined.pk}/change/").content.decode()
    note = re.search(r'<p class="cr-note cr-wrap" id="cr-group-note">(.*?)</p>', page, re.S)
    assert note is not None
    assert "One of 4 references citing the same work (1 undecided)" in note.group(1)
    assert "Proposed for this one:" in note.group(1) and "the SC paper" in note.group(1)
