"""Reader pages and curator screens at 1,280 and 390 px in a real browser (issue 26 items 7, 8):
web and software references can be told apart, candidate scores are explained, no button label
wraps, arXiv ids never break, and on a phone the filter and the Decide form come first.
Screenshots go to artifacts/layout/."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from curation.audit import Actor
from curation.models import Observation, Paper
from curation.services import reference_list_import
from curation.services.observations import observation_mark_no_canonical_record
from tests.admin import conftest as admin
from tests.admin.conftest import CITING, IMPORTER, Listed, resolve_all
from tests.browser import login, new_page, shot

# The curator personas and the resolved references of the admin tests (tests/admin/conftest.py).
groups, alice, resolved = admin.groups, admin.alice, admin.resolved

pytestmark = pytest.mark.django_db(transaction=True)

WEB = "2502.00002"
WEB_REFERENCES = [
    "https://github.com/NVIDIA/Megatron-LM/issues/1611",
    "https://www.tensorflow.org/xla",
    "PyTorch. Distributed communication package. https://pytorch.org/docs/stable/distributed.html",
    "J. Smith. Silent data corruption in large training runs. 2023.",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

# The number of lines an element's text takes: distinct tops of the line boxes of its text.
LINES = """(el) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
  return tops.size;
}"""


@pytest.fixture
def web_references(resolved: dict[int, Observation]) -> dict[int, Observation]:
    """Return a paper citing two bare links and a titled web page, the links marked by a
    curator as having no canonical record (beside the queue's `resolved` references)."""
    now = timezone.now()
    Paper.objects.create(arxiv_id=WEB, title="Paper citing software", submitted_at=now,
                         last_updated=now, latest_version=1)  # fmt: skip
    reference_list_import(
        arxiv_id=WEB,
        references=[Listed(n, str(n), raw) for n, raw in enumerate(WEB_REFERENCES, 1)],
        actor=IMPORTER,
        reason="test reference list",
    )
    resolve_all(WEB)
    by_number = {o.reference_index: o for o in Observation.objects.filter(paper__arxiv_id=WEB)}
    for n in (1, 2):
        observation_mark_no_canonical_record(
            observation=by_number[n], expected_revision=by_number[n].revision,
            actor=Actor.command("test"), reason="software and a web page: no catalogue holds them",
        )  # fmt: skip
    return by_number


def _reader(browser: Any, url: str, size: dict[str, int]) -> Any:
    page = new_page(browser, size["width"], size["height"])
    page.goto(url)
    return page


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280", "390"])
def test_web_and_software_references_can_be_told_apart(
    live_server: Any, browser: Any, web_references: dict[int, Observation], size: dict[str, int]
) -> None:
    page = _reader(browser, f"{live_server.url}/paper/{WEB}/citation-record", size)
    shot(page, f"record-web-references-{size['width']}", folder="layout")

    def title_of(n: int) -> str:
        return str(page.locator(f"#obs-{web_references[n].pk} .title").inner_text())

    github, xla = title_of(1), title_of(2)
    assert github != xla
    assert "GitHub NVIDIA/Megatron-LM, issue 1611" in github
    assert "tensorflow.org/xla" in xla
    assert "(no title in the reference)" in github and "(no title in the reference)" in xla
    for n, host in ((1, "github.com"), (2, "tensorflow.org")):
        line = page.locator(f"#obs-{web_references[n].pk} .line")
        assert host in line.inner_text() and "no canonical record" in line.inner_text()
    pytorch = page.locator(f"#obs-{web_references[3].pk}")
    assert pytorch.locator(".title").inner_text() == "Distributed communication package"
    assert pytorch.locator(".raw").inner_text() == WEB_REFERENCES[2]  # short: shown whole
    assert "pytorch.org" in pytorch.locator(".line").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280", "390"])
def test_candidate_scores_are_explained_where_they_are_shown(
    live_server: Any, browser: Any, resolved: dict[int, Observation], size: dict[str, int]
) -> None:
    tie = resolved[1]  # two catalogue papers with the same title: candidates with scores
    page = _reader(browser, f"{live_server.url}/evidence?observation={tie.pk}", size)
    shot(page, f"evidence-scores-{size['width']}", folder="layout")

    rows = page.locator("#candidates tbody tr")
    assert rows.count() == 2
    scores = [rows.nth(i).locator(".score").inner_text() for i in range(2)]
    assert scores[0] == scores[1] and 0 < int(scores[0]) <= 100
    note = page.locator(".score-note").inner_text()
    assert "from 0 to 100" in note and "same best score leave the reference unresolved" in note
    assert page.locator("#scores").count() == 1  # the general explanation the table links to
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]


def test_no_button_label_wraps_at_1280(
    live_server: Any, browser: Any, resolved: dict[int, Observation], alice: Any
) -> None:
    base = live_server.url
    page = login(browser, base, "alice", **DESKTOP)
    for name, url in (
        ("queue", f"{base}/admin/curation/observation/"),
        ("observation", f"{base}/admin/curation/observation/{resolved[1].pk}/change/"),
    ):
        page.goto(url)
        shot(page, f"{name}-1280", folder="layout")
        buttons = page.locator("button:visible, input[type=submit]:visible")
        assert buttons.count() > 0
        wrapped = {
            buttons.nth(i).inner_text() or buttons.nth(i).get_attribute("value"): lines
            for i in range(buttons.count())
            if (lines := buttons.nth(i).evaluate(LINES)) > 1
        }
        assert wrapped == {}, f"{name}: labels on more than one line: {wrapped}"
    accepts = page.locator("#cr-candidates button", has_text="Accept")
    assert accepts.count() == 2
    # The layout curators know stays: candidates on the left, the Decide form on the right.
    decide, candidates = (
        page.locator("#cr-decide").bounding_box(),
        page.locator("#cr-candidates").bounding_box(),
    )
    assert decide["x"] > candidates["x"] + candidates["width"] - 1


def test_on_a_phone_ids_stay_whole_and_the_filter_and_decide_form_come_first(
    live_server: Any, browser: Any, resolved: dict[int, Observation], alice: Any
) -> None:
    base = live_server.url
    page = login(browser, base, "alice", **PHONE)

    page.goto(f"{base}/admin/curation/observation/")
    shot(page, "queue-390", folder="layout")
    ids = page.locator("#result_list .cr-paper")
    assert ids.count() == 4
    for i in range(ids.count()):
        assert ids.nth(i).evaluate(LINES) == 1, ids.nth(i).inner_text()
        assert ids.nth(i).inner_text() == CITING
    cell = page.locator("#result_list td.field-reference, #result_list th.field-reference").first
    assert cell.evaluate("el => el.scrollWidth <= el.clientWidth")  # the id fits its cell
    # ... and the list still fits the phone: no sideways scroll to reach the candidates.
    assert page.locator("#result_list").bounding_box()["width"] <= PHONE["width"]
    filter_box = page.locator("#changelist-filter").bounding_box()
    assert filter_box["y"] < PHONE["height"], filter_box
    assert filter_box["y"] < page.locator("#result_list").bounding_box()["y"]

    page.goto(f"{base}/admin/curation/observation/{resolved[1].pk}/change/")
    shot(page, "observation-390", folder="layout")
    decide = page.locator("#cr-decide").bounding_box()
    assert decide["y"] < page.locator("#cr-candidates").bounding_box()["y"]
    assert decide["y"] < PHONE["height"]


def test_the_record_page_reads_what_references_carry_in_one_statement(
    web_references: dict[int, Observation],
) -> None:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = Client().get(f"/paper/{WEB}/citation-record")

    assert response.status_code == 200
    # The builder reads whole rows; the notes read three columns of the displayed references.
    notes = [q["sql"] for q in queries if 'AS "no_canonical_record"' in q["sql"]]
    assert len(notes) == 1 and notes[0].count("::uuid") == len(WEB_REFERENCES)
    assert b"GitHub NVIDIA/Megatron-LM, issue 1611" in response.content
    # The v1 document is unchanged by it: no link, host or text of a reference in the JSON.
    document = Client().get(f"/paper/{WEB}/citation-record.json").content
    assert b"tensorflow.org" not in document and b"no canonical record" not in document
