"""Issue 26 in a real browser (Debian's Chromium, headless): a stray `a` on a low-score candidate
saves nothing until the curator confirms, a high-score accept takes one key, Undo restores the
previous state in one click, and a work missing from the catalogues is fetched (fake arXiv, fake
Crossref) and linked in one step, or refused plainly offline. Screens at 1,280 and 390 px go to
artifacts/decisions/."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.utils import timezone
from pytest_httpserver import HTTPServer

from curation.admin.history import observation_changes
from curation.models import Observation, Paper
from curation.resolution.models import CrossrefWork
from curation.services import reference_list_import
from tests.browser import login, page_width, shot
from tests.clients.arxiv import conftest as arxiv_fixtures
from tests.clients.arxiv.fake_arxiv import FakeArxiv

from .conftest import IMPORTER, Listed
from .helpers import fresh, page_url
from .test_accept_top import ATTENTION, LOW_CITING, RESNET, low_score_reference, resolver_verdict

fake_arxiv = arxiv_fixtures.fake_arxiv  # the fixture, for this module
pytestmark = pytest.mark.django_db(transaction=True)
FOLDER = "decisions"
VGG = "1409.1556"
REASON = "candidate checked: same work"


def high_score_references() -> list[Observation]:
    """Return two more references of the same paper whose top candidate scores 98 of 100."""
    now = timezone.now()
    Paper.objects.create(arxiv_id=VGG, title="Very Deep Convolutional Networks", in_catalogue=True,
                         submitted_at=now, last_updated=now, latest_version=1)  # fmt: skip
    texts = [
        "K. He et al. Deep residual learning for image recognition. CVPR 2016.",
        "K. He, X. Zhang. Deep Residual Learning for Image Recognition. 2016.",
        "K. Simonyan. Very deep convolutional networks. ICLR 2015.",
    ]
    reference_list_import(arxiv_id=LOW_CITING, references=[Listed(n, str(n), t) for n, t in enumerate(texts, 1)],
                          actor=IMPORTER, reason="test reference list")  # fmt: skip
    found = []
    for index, (arxiv_id, title) in ((2, (RESNET, "Deep Residual Learning for Image Recognition")),
                                     (3, (VGG, "Very Deep Convolutional Networks"))):  # fmt: skip
        observation = Observation.objects.get(paper__arxiv_id=LOW_CITING, reference_index=index)
        candidate = {"source": "local_arxiv", "arxiv_id": arxiv_id, "title": title, "title_exact": True,
                     "year_check": "agrees", "author_check": "agrees", "score": 104.0}  # fmt: skip
        resolver_verdict(observation, {"candidates": [candidate]})
        found.append(Observation.objects.get(pk=observation.pk))
    return found


def both_widths(browser: Any, base: str, url: str, name: str, act: Any = None) -> None:
    """Screenshot a page at 1,280 and 390 px (after `act(page)`); neither may scroll sideways."""
    for width in (1280, 390):
        page = login(browser, base, "bob", width=width, height=900)
        page.goto(base + url)
        if act is not None:
            act(page)
        shot(page, f"{name}-{width}", FOLDER)
        assert page_width(page) <= width, f"{name} is {page_width(page)} px wide at {width}"
        page.context.close()


def test_a_stray_key_cannot_link_a_low_score_candidate_and_undo_takes_one_click(
    live_server: Any, browser: Any, alice: Any, bob: Any
) -> None:
    low = low_score_reference()
    high, other = high_score_references()
    base = live_server.url
    page = login(browser, base, "alice", width=1280, height=900)

    # A high-score candidate: the reason once, then `a` saves it.
    page.goto(base + page_url(high))
    page.fill("#id_reason", REASON)
    page.locator("#cr-raw").click()  # out of the reason box: keys are shortcuts again
    with page.expect_navigation():
        page.keyboard.press("a")
    assert fresh(high).cited_paper.arxiv_id == RESNET
    # The next one with the remembered reason: one key.
    page.goto(base + page_url(other))
    with page.expect_navigation():
        page.keyboard.press("a")
    assert fresh(other).cited_paper.arxiv_id == VGG

    # The low-score one: the same key and reason ask for a confirmation and save nothing.
    before = fresh(low)
    page.goto(base + page_url(low))
    assert "scores 9 of 100" in page.inner_text("#cr-top-low")
    with page.expect_navigation():
        page.keyboard.press("a")
    assert page.locator("#cr-confirm").is_visible()
    why = page.inner_text("#cr-confirm-why")
    assert "Attention Is All You Need" in why and "contradicts: year, author" in why and "below 87" in why
    after = fresh(low)
    assert (after.revision, after.cited_paper, after.pinned) == (before.revision, None, False)
    shot(page, "01-low-score-confirm-1280", FOLDER)

    def press_a(p: Any) -> None:
        p.fill("#id_reason", REASON)
        p.locator("#cr-raw").click()
        with p.expect_navigation():
            p.keyboard.press("a")
        assert p.locator("#cr-confirm").is_visible()

    both_widths(browser, base, page_url(low), "02-low-score-confirm", press_a)
    assert fresh(low).revision == before.revision

    # Confirmed: linked; the next page's message carries Undo.
    with page.expect_navigation():
        page.click("#cr-confirm-link")
    assert fresh(low).cited_paper.arxiv_id == ATTENTION
    undo = page.locator(f"#cr-undo-{low.pk}")
    assert undo.is_visible()
    shot(page, "03-linked-with-undo-1280", FOLDER)

    # Undo, one click: back to the state before, recorded with the reason "undo".
    with page.expect_navigation():
        undo.click()
    restored = fresh(low)
    assert restored.cited_paper is None and not restored.pinned
    assert restored.resolution.status == "unresolved"
    assert restored.resolution.evidence == before.resolution.evidence
    latest = observation_changes(low.pk)[0]
    assert (latest.actor, latest.metadata["reason"]) == ("user:alice", "undo")
    assert "Undone: back to revision" in page.inner_text(".messagelist")
    shot(page, "04-undone-1280", FOLDER)


def test_fetch_and_link_a_missing_arxiv_paper_and_doi_or_say_offline(
    live_server: Any, browser: Any, resolved: Any, alice: Any, bob: Any, fake_arxiv: FakeArxiv,
    httpserver: HTTPServer, settings: Any,
) -> None:
    fake_arxiv.add_record("2303.08774", title="GPT-4 Technical Report", authors="OpenAI", categories="cs.CL")
    doi = f"10.5555/{uuid.uuid4().hex[:8]}"  # a fresh DOI: no cached Crossref answer can stand in
    work = {"DOI": doi, "title": ["Checkpointing for fault tolerant deep learning"], "type": "journal-article"}
    httpserver.expect_request(f"/works/{doi}").respond_with_json({"status": "ok", "message": work})
    settings.CROSSREF_BASE_URL = httpserver.url_for("/").rstrip("/")
    base = live_server.url
    page = login(browser, base, "alice", width=1280, height=900)

    def link(observation: Observation, identifier: str, reason: str) -> None:
        page.goto(base + page_url(observation))
        page.keyboard.press("l")
        page.fill("#id_link_identifier", identifier)
        page.fill("#id_reason", reason)
        with page.expect_navigation():
            page.keyboard.press("Enter")

    # arXiv: refused with an offer; one click fetches, stores and links.
    link(resolved[2], "arXiv:2303.08774", "The GPT-4 report")
    assert "not in the local catalogue" in page.inner_text(".messagelist")
    assert not Paper.objects.filter(arxiv_id="2303.08774").exists()
    shot(page, "05-fetch-arxiv-offer-1280", FOLDER)
    with page.expect_navigation():
        page.click("#cr-fetch-link")
    assert Paper.objects.get(arxiv_id="2303.08774").title == "GPT-4 Technical Report"
    assert fresh(resolved[2]).cited_paper.arxiv_id == "2303.08774"
    assert "Fetched from arXiv and linked" in page.inner_text(".messagelist")
    shot(page, "06-fetched-arxiv-1280", FOLDER)

    # A DOI missing from the local Crossref catalogue: the same, from the fake Crossref.
    link(resolved[3], doi, "The published version")
    assert "not in the local Crossref catalogue" in page.inner_text(".messagelist")
    with page.expect_navigation():
        page.click("#cr-fetch-link")
    assert CrossrefWork.objects.filter(doi=doi).exists()
    stored = fresh(resolved[3])
    assert stored.work_doi == doi and stored.resolution.resolver_source == "doi"

    # Offline: said plainly, nothing offered, nothing saved, nothing asked.
    settings.CITEREC_OFFLINE = True
    asked = fake_arxiv.count()
    before = fresh(resolved[1]).revision
    link(resolved[1], "arXiv:2304.00001", "try")
    assert "offline (CITEREC_OFFLINE=1), so it cannot be fetched from arXiv" in page.inner_text(".messagelist")
    assert page.locator("#cr-fetch").count() == 0
    assert fresh(resolved[1]).revision == before and fake_arxiv.count() == asked
    shot(page, "07-offline-1280", FOLDER)

    def offline_refusal(p: Any) -> None:
        p.keyboard.press("l")
        p.fill("#id_link_identifier", "arXiv:2304.00001")
        p.fill("#id_reason", "try")
        with p.expect_navigation():
            p.keyboard.press("Enter")

    both_widths(browser, base, page_url(resolved[1]), "08-offline", offline_refusal)
    settings.CITEREC_OFFLINE = False

    def fetch_offer(p: Any) -> None:
        offline_refusal(p)
        assert p.locator("#cr-fetch").is_visible()

    both_widths(browser, base, page_url(resolved[1]), "09-fetch-offer", fetch_offer)


def test_retire_has_a_key_that_only_opens_its_confirmation(live_server: Any, browser: Any, resolved: Any, alice: Any) -> None:
    base = live_server.url
    page = login(browser, base, "alice", width=1280, height=900)
    page.goto(base + page_url(resolved[3]))
    assert "4 parse uncertain" in " ".join(page.inner_text("#cr-state-keys").split())
    page.fill("#id_reason", "write newline: a BibTeX artefact")
    page.locator("#cr-raw").click()
    page.keyboard.press("x")
    confirm = page.locator("#cr-retire-confirm")
    assert confirm.is_visible() and confirm.evaluate("b => b === document.activeElement")
    assert fresh(resolved[3]).retired_at is None  # the key alone retires nothing
    shot(page, "10-retire-confirm-1280", FOLDER)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert fresh(resolved[3]).retired_at is not None
