"""Ingestion screens in a real browser (Debian's Chromium, headless) against a live server and
a fake arXiv: a curator adds papers from the admin (a refused id is named, the good one is
built), follows it from the "Paper ingestions" list to its record page, ingests it again; a
PDF-only paper says why it has no references; read-only staff cannot add papers. Screens at
1,280 and 390 px go to artifacts/ingestion/ and none may be wider than its window.

Tasks run eagerly and the live server commits each request, so the jobs `papers_add` queues
with transaction.on_commit run inside the request that added the papers. The fake arXiv's
settings (the `settings` fixture) are process-wide: the live server's thread sees them."""

from __future__ import annotations

from typing import Any

import pytest

from curation.ingestion.models import IngestionState, PaperIngestion
from curation.models import Observation
from curation.permissions import CURATORS, READ_ONLY_STAFF, ensure_groups
from tests.admin.conftest import make_user
from tests.browser import login, page_width, shot
from tests.clients.arxiv.fake_arxiv import MINIMAL_PDF, FakeArxiv

from .conftest import add_papers, dev_source

pytestmark = pytest.mark.django_db(transaction=True)

GOOD = "2401.00001"
PDF_ONLY = "2401.00002"
BAD = "2413.00001"  # month 13: looks like an id, is not one
TITLE = "Eyewall replacement in tropical cyclones"
WIDTHS = (1280, 390)
FOLDER = "ingestion"
LIST = "/admin/ingestion/paperingestion/"
ADD = "/admin/ingestion/paperingestion/add-papers/"
PDF_ONLY_WHY = "PDF only: no source bibliography"


@pytest.fixture
def staff(db: Any) -> None:
    """Carla curates, Rita only reads (the groups are gone after a transactional flush)."""
    ensure_groups()
    make_user("carla", CURATORS)
    make_user("rita", READ_ONLY_STAFF)


def record_url(arxiv_id: str) -> str:
    return f"/paper/{arxiv_id}/citation-record"


def row(page: Any, arxiv_id: str) -> Any:
    """Return the list's row of this paper."""
    return page.locator(
        "#result_list tbody tr", has=page.locator(f"a[href='{record_url(arxiv_id)}']")
    )


def cell(page: Any, arxiv_id: str, column: str) -> str:
    return str(row(page, arxiv_id).locator(f".field-{column}").inner_text()).strip()


def submit(page: Any, ids: str) -> None:
    """Fill the Add papers form with these ids and send it (the jobs run in the request)."""
    page.fill("#id_arxiv_ids", ids)
    with page.expect_navigation():
        page.click("#add-papers input[type=submit]")


def test_a_curator_adds_papers_sees_the_refused_one_and_follows_the_good_one_to_its_record(
    live_server: Any, browser: Any, fake_arxiv: FakeArxiv, staff: None
) -> None:
    fake_arxiv.add_record(GOOD, title=TITLE, versions=2)
    fake_arxiv.add_eprint(GOOD, dev_source("Eyewall__2018jas"), version=2)
    base = live_server.url
    page = login(browser, base, "carla", width=1280, height=900)

    page.goto(base + LIST)
    assert "done: 0" in page.locator(".ingestion-counts").inner_text()
    shot(page, "list-empty-1280", FOLDER)
    page.click("#content-main .object-tools a.addlink:text-is('Add papers')")
    page.wait_for_url(base + ADD)
    assert page.locator("#id_force").count() == 1 and page.input_value("#id_reason")

    # One good id and one that is not an id: the bad one is named, the good one is built.
    submit(page, f"{GOOD}\n{BAD}")
    messages = page.locator(".messagelist")
    assert messages.locator(".error").inner_text() == (
        f"'{BAD}' is not an arXiv id (expected e.g. 2401.00001, arXiv:2401.00001v2 or hep-th/9901001)"
    )
    assert messages.locator(".success").inner_text() == f"Queued 1: {GOOD}"
    shot(page, "add-papers-one-refused-1280", FOLDER)
    done = PaperIngestion.objects.get(paper__arxiv_id=GOOD)
    assert (done.state, done.reference_count, done.version) == (IngestionState.DONE, 19, 2)
    assert PaperIngestion.objects.count() == 1  # nothing for the refused one

    # The list: the state counts above it, and the paper done with its references.
    page.goto(base + LIST)
    counts = page.locator(".ingestion-counts").inner_text()
    assert "done: 1" in counts and "failed: 0" in counts, counts
    assert page.locator("#result_list tbody tr").count() == 1
    assert cell(page, GOOD, "state") == "done"
    assert cell(page, GOOD, "reference_count") == "19"
    assert cell(page, GOOD, "why") in ("", "-")
    shot(page, "list-done-1280", FOLDER)

    # Through to the record page: the ingestion line and the references, in order.
    row(page, GOOD).locator(f"a[href='{record_url(GOOD)}']").click()
    page.wait_for_url(base + record_url(GOOD))
    assert page.inner_text("h1") == TITLE
    assert page.locator("#ingestion").inner_text() == (
        "Built from the arXiv source of v2: done (19 references, bbl-bibitem)"
    )
    references = page.locator("#references + ol.refs > li.ref")
    assert references.count() == 19
    assert [references.nth(n).locator(".num").inner_text() for n in (0, 18)] == ["[1]", "[19]"]
    shot(page, "record-1280", FOLDER)

    # "Ingest again" reads the stored source again: no new e-print request, same references.
    before = {o.pk: o.revision for o in Observation.objects.filter(paper__arxiv_id=GOOD)}
    page.goto(base + LIST)
    row(page, GOOD).locator("input.action-select").check()
    page.select_option("select[name=action]", "ingest_again")
    with page.expect_navigation():
        page.click("button[name=index]")
    assert "queued again" in page.locator(".messagelist").inner_text()
    assert cell(page, GOOD, "state") == "done"
    assert fake_arxiv.count("eprint") == 1
    assert {o.pk: o.revision for o in Observation.objects.filter(paper__arxiv_id=GOOD)} == before
    page.context.close()


def test_a_pdf_only_paper_says_it_has_no_source_bibliography(
    live_server: Any, browser: Any, fake_arxiv: FakeArxiv, staff: None, settings: Any
) -> None:
    settings.GROBID_URL = ""  # no GROBID: a PDF-only paper waits for one
    fake_arxiv.add_record(PDF_ONLY, title="A paper submitted as a PDF")
    fake_arxiv.add_eprint(PDF_ONLY, MINIMAL_PDF)
    base = live_server.url
    page = login(browser, base, "carla", width=1280, height=900)

    page.goto(base + ADD)
    submit(page, PDF_ONLY)  # nothing refused: back to the list
    assert page.url == base + LIST
    assert page.locator(".messagelist .success").inner_text() == f"Queued 1: {PDF_ONLY}"
    assert "PDF only: 1" in page.locator(".ingestion-counts").inner_text()
    assert cell(page, PDF_ONLY, "state") == "PDF only"
    assert cell(page, PDF_ONLY, "why") == PDF_ONLY_WHY
    shot(page, "list-pdf-only-1280", FOLDER)

    page.goto(base + record_url(PDF_ONLY))
    line = page.locator("#ingestion").inner_text()
    assert PDF_ONLY_WHY in line, line
    assert page.locator("#references + p").inner_text() == "No references recorded."
    shot(page, "record-pdf-only-1280", FOLDER)
    page.context.close()


def test_read_only_staff_see_the_list_but_cannot_add_papers(
    live_server: Any, browser: Any, staff: None
) -> None:
    base = live_server.url
    page = login(browser, base, "rita", width=1280, height=900)
    answer = page.goto(base + LIST)
    assert answer is not None and answer.status == 200
    assert page.locator(".ingestion-counts").count() == 1
    assert page.locator("a:text-is('Add papers')").count() == 0
    assert page.locator(f"a[href='{ADD}']").count() == 0
    assert page.locator("select[name=action]").count() == 0  # no "Ingest again" either
    shot(page, "list-read-only-1280", FOLDER)

    answer = page.goto(base + ADD)
    assert answer is not None and answer.status == 403
    assert "for curators" in page.content()
    # Nor can a crafted POST add anything.
    token = page.context.cookies()
    csrf = next(c["value"] for c in token if c["name"] == "csrftoken")
    posted = page.request.post(base + ADD, form={"arxiv_ids": GOOD, "reason": "r", "csrfmiddlewaretoken": csrf},
                                headers={"Referer": base + ADD})  # fmt: skip
    assert posted.status == 403
    assert not PaperIngestion.objects.exists()
    page.context.close()


def seed(fake_arxiv: FakeArxiv) -> None:
    """Build the good paper and the PDF-only one in process (the screens only read them)."""
    fake_arxiv.add_record(GOOD, title=TITLE, versions=2)
    fake_arxiv.add_eprint(GOOD, dev_source("Eyewall__2018jas"), version=2)
    fake_arxiv.add_record(PDF_ONLY, title="A paper submitted as a PDF")
    fake_arxiv.add_eprint(PDF_ONLY, MINIMAL_PDF)
    add_papers(GOOD, PDF_ONLY)
    states = dict(PaperIngestion.objects.values_list("paper__arxiv_id", "state"))
    assert states == {GOOD: IngestionState.DONE, PDF_ONLY: IngestionState.PDF_ONLY}


SCREENS = {"list": LIST, "add-papers": ADD, "add-papers-refused": ADD, "record": record_url(GOOD),
           "record-pdf-only": record_url(PDF_ONLY)}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "width"),
    [(name, width) for width in WIDTHS for name in SCREENS],
)  # fmt: skip
def test_each_screen_fits_its_window(live_server: Any, browser: Any, fake_arxiv: FakeArxiv, staff: None,
                                     settings: Any, name: str, width: int) -> None:  # fmt: skip
    settings.GROBID_URL = ""
    seed(fake_arxiv)
    base = live_server.url
    page = login(browser, base, "carla", width=width, height=900)
    page.goto(base + SCREENS[name])
    if name == "add-papers-refused":
        submit(page, BAD)
        assert f"'{BAD}' is not an arXiv id" in page.locator(".messagelist .error").inner_text()
    shot(page, f"{name}-{width}", FOLDER)
    wide = page_width(page)
    page.context.close()
    assert wide <= width, f"{name} is {wide} px wide in a {width} px window"


def test_every_column_of_the_list_is_in_view_at_1280(live_server: Any, browser: Any, fake_arxiv: FakeArxiv,
                                                     staff: None, settings: Any) -> None:  # fmt: skip
    settings.GROBID_URL = ""
    seed(fake_arxiv)
    base = live_server.url
    page = login(browser, base, "carla", width=1280, height=900)
    page.goto(base + LIST)
    last = page.locator("#result_list thead th").last.bounding_box()
    shown = page.locator("#changelist .results").bounding_box()
    page.context.close()
    assert last is not None and shown is not None
    assert last["x"] + last["width"] <= shown["x"] + shown["width"] + 1, (last, shown)
