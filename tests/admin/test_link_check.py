"""The curator screens of the resolver measured by its curators (issue 41 item 3): the precision
page with its draw form, "Links to check", and the check page's one-step confirm."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from curation.resolution.models import LabelOutcome, LabelWhy, LinkSampleItem, VerdictLabel
from curation.services.observations import observation_correct, observation_set_state
from curation.states import ResolutionStatus
from tests.resolution.verdicts_data import ALICE, fresh, verdict

pytestmark = pytest.mark.django_db
PRECISION = "/admin/resolution/linksampleitem/precision/"
QUEUE = "/admin/resolution/linksampleitem/"


@pytest.fixture
def links() -> None:
    for i in range(4):
        verdict(i, probability=0.995)
    for i in range(2):
        verdict(10 + i, probability=0.7)


def draw(client: Client, per_band: str = "2", seed: str = "s1") -> object:
    return client.post(PRECISION, {"per_band": per_band, "seed": seed, "reason": "check"})


def check_url(item: LinkSampleItem) -> str:
    return f"{QUEUE}{item.pk}/check/"


def test_a_curator_draws_a_sample_and_walks_it(alice: Client, links: None) -> None:
    response = draw(alice)
    assert response.status_code == 302 and response["Location"] == QUEUE
    items = list(LinkSampleItem.objects.order_by("position"))
    assert [i.band for i in items] == ["0.50–0.80"] * 2 + ["0.99–1.00"] * 2

    listing = alice.get(QUEUE).content.decode()
    assert "<h1>Links to check</h1>" in listing
    assert f'href="{check_url(items[0])}" id="cr-start"' in listing
    assert listing.count("/check/") >= 4

    page = alice.get(check_url(items[0])).content.decode()
    assert "arXiv:2301.00001" in page and 'id="cr-confirm"' in page
    assert f'href="{check_url(items[1])}" id="cr-skip"' in page
    revision = fresh(items[0].observation).revision
    confirmed = alice.post(check_url(items[0]), {"revision": revision})
    assert confirmed.status_code == 302 and confirmed["Location"] == check_url(items[1])
    label = VerdictLabel.objects.get()
    assert (label.outcome, label.why, label.actor) == (LabelOutcome.CONFIRMED, LabelWhy.SAMPLED,
                                                      "user:alice")  # fmt: skip
    assert fresh(items[0].observation).pinned
    # Checked links leave the queue.
    assert check_url(items[0]) not in alice.get(QUEUE).content.decode()


def test_confirming_a_stale_revision_answers_409_and_writes_nothing(alice: Client, links: None) -> None:
    draw(alice)
    item = LinkSampleItem.objects.order_by("position").first()
    assert item is not None
    o = fresh(item.observation)
    # Bob corrects the year meanwhile: no decision on the link, but a new revision.
    observation_correct(observation=o, changes={"work_year": 2020}, expected_revision=o.revision,
                        actor=ALICE, reason="meanwhile")  # fmt: skip
    response = alice.post(check_url(item), {"revision": o.revision})
    assert response.status_code == 409
    assert "Not saved" in response.content.decode()
    assert not VerdictLabel.objects.exists()
    item.refresh_from_db()
    assert item.checked_at is None


def test_a_link_decided_on_the_reference_page_is_checked_already(alice: Client, links: None) -> None:
    draw(alice)
    item = LinkSampleItem.objects.order_by("position").first()
    assert item is not None
    o = fresh(item.observation)
    observation_set_state(observation=o, status=ResolutionStatus.UNRESOLVED,
                          expected_revision=o.revision, actor=ALICE, reason="wrong")  # fmt: skip
    response = alice.post(check_url(item), {"revision": fresh(o).revision})
    assert response.status_code == 400
    assert "checked already" in response.content.decode()
    assert VerdictLabel.objects.get().outcome == LabelOutcome.UNLINKED


def test_a_bad_form_is_refused_with_why(alice: Client, links: None) -> None:
    response = draw(alice, per_band="0")
    assert response.status_code == 200
    assert "Ensure this value is greater than or equal to 1" in response.content.decode()
    assert not LinkSampleItem.objects.exists()
    draw(alice)
    item = LinkSampleItem.objects.first()
    assert item is not None
    assert alice.post(check_url(item), {}).status_code == 400


def test_the_precision_page_shows_both_estimates(alice: Client, links: None) -> None:
    draw(alice)
    for item in LinkSampleItem.objects.order_by("position"):
        alice.post(check_url(item), {"revision": fresh(item.observation).revision})
    page = alice.get(PRECISION).content.decode()
    overall = re.search(r'<tr id="cr-overall-stratified">.*?</tr>', page, re.S)
    assert overall is not None
    assert "<td class=\"cr-num\">4</td>" in overall.group(0) and "1.000" in overall.group(0)
    assert "came to curators" in page and "checked because sampled" in page
    assert re.search(r"<td>0\.99–1\.00</td><td class=\"cr-num\">4</td>", page)


def test_read_only_staff_see_the_figures_but_draw_and_confirm_nothing(
    rita: Client, alice: Client, links: None
) -> None:
    page = rita.get(PRECISION)
    assert page.status_code == 200 and 'id="cr-draw"' not in page.content.decode()
    assert draw(rita).status_code == 403
    draw(alice)
    item = LinkSampleItem.objects.first()
    assert item is not None
    assert 'id="cr-confirm"' not in rita.get(check_url(item)).content.decode()
    assert rita.post(check_url(item), {"revision": 1}).status_code == 403
    assert not VerdictLabel.objects.exists()
