"""Content-Security-Policy (citerec/csp.py): on every HTML page, and every page keeps working.

The policy allows no inline script or style except what carries the response's nonce, so these
tests check that each page citerec renders (reader pages, the admin's screens, the API docs) has
the header and no inline block the policy would refuse; a real browser then loads the pages and
reports every refusal.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from citerec.csp import HEADER, POLICY
from curation.audit import Actor, audited
from curation.models import CitedWork, Observation
from curation.notices.models import NoticeEvent, NoticeReview
from curation.permissions import ensure_groups
from tests.admin.conftest import make_user
from tests.browser import login, new_page

pytestmark = pytest.mark.django_db

PAPER = "2412.14374"
READER_PAGES = [
    f"/paper/{PAPER}/citation-record",
    f"/paper/{PAPER}",
    f"/paper/{PAPER}/integrity",
    "/evidence",
]
_NONCE = re.compile(r"'nonce-([^']+)'")


@pytest.fixture
def site(sample_record_path: Any) -> dict[str, Any]:
    """The sample record, a notice to review, and a superuser (sees every admin screen)."""
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    ensure_groups()
    work = CitedWork.objects.get(arxiv_id="1604.06174")
    now = timezone.now()
    with audited(Actor.command("test"), "fixture"):
        event = NoticeEvent.objects.create(
            work=work, source="crossref", identity="10.1/notice", type="retraction", severity=0,
            first_seen_at=now, last_seen_at=now,
        )  # fmt: skip
        review = NoticeReview.objects.create(event=event, severity=0, opened_at=now)
    observation = Observation.objects.filter(paper__arxiv_id=PAPER).first()
    assert observation is not None
    return {"user": make_user("sam", None, superuser=True), "review": review, "obs": observation}


def _admin_pages(site: dict[str, Any]) -> list[str]:
    obs = site["obs"].pk
    return [
        "/admin/",
        "/admin/curation/observation/",
        f"/admin/curation/observation/{obs}/change/",
        f"/admin/curation/observation/{obs}/history/",
        "/admin/curation/observation/log/",
        "/admin/notices/noticereview/",
        f"/admin/notices/noticereview/{site['review'].pk}/change/",
        "/admin/ingestion/paperingestion/",
        "/admin/ingestion/paperingestion/add-papers/",
        "/admin/api/apitoken/",
        "/admin/api/apitoken/add/",
    ]


def refused_inline(html: str, nonce: str | None) -> list[str]:
    """Return the inline scripts, styles and style attributes the policy would refuse."""
    found = []
    for tag in re.findall(r"<(?:script|style)\b[^>]*>", html, re.I):
        if tag.lower().startswith("<script") and re.search(r"\bsrc=", tag):
            continue  # a file from this site
        if 'type="application/json"' in tag:
            continue  # data, never run
        if nonce is not None and f'nonce="{nonce}"' in tag:
            continue
        found.append(tag)
    found += re.findall(r"<[^>]+\sstyle=\"[^\"]*\"[^>]*>", html)
    found += re.findall(r"<[^>]+\son[a-z]+=\"[^\"]*\"[^>]*>", html)  # onclick= and the like
    return found


def _check_page(client: Client, url: str) -> None:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    assert response["Content-Type"].startswith("text/html"), url
    policy = response[HEADER]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy, policy
    nonce = _NONCE.search(policy)
    assert refused_inline(response.content.decode(), nonce and nonce.group(1)) == [], url


@pytest.mark.parametrize("url", READER_PAGES)
def test_reader_pages_carry_the_policy_and_no_inline_code(
    client: Client, site: dict[str, Any], url: str
) -> None:
    _check_page(client, url)


def test_admin_pages_carry_the_policy_and_no_inline_code(site: dict[str, Any]) -> None:
    client = Client()
    client.force_login(site["user"])
    for url in _admin_pages(site):
        _check_page(client, url)
    _check_page(Client(), "/admin/login/")


def test_the_api_docs_run_their_inline_script_by_nonce_only(client: Client, db: Any) -> None:
    first, second = client.get("/api/docs/"), client.get("/api/docs/")

    nonces = [_NONCE.search(r[HEADER]) for r in (first, second)]
    assert all(nonces) and nonces[0].group(1) != nonces[1].group(1)  # type: ignore[union-attr]
    html = first.content.decode()
    assert html.count(f'nonce="{nonces[0].group(1)}"') == 2  # type: ignore[union-attr]
    assert refused_inline(html, nonces[0].group(1)) == []  # type: ignore[union-attr]


def test_json_answers_have_no_policy(client: Client, site: dict[str, Any]) -> None:
    response = client.get(f"/paper/{PAPER}/citation-record.json")

    assert response.status_code == 200 and HEADER not in response


def test_the_policy_allows_nothing_inline_without_a_nonce() -> None:
    directives = dict(d.strip().split(" ", 1) for d in POLICY.split(";"))

    assert directives["script-src"] == directives["style-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"


@pytest.mark.django_db(transaction=True)
def test_pages_work_in_a_browser_under_the_policy(
    live_server: Any, browser: Any, site: dict[str, Any]
) -> None:
    """A real browser reports each refusal (securitypolicyviolation) and shows the styles."""
    base = live_server.url
    page = login(browser, base, "sam")
    watch = (
        "window.__csp = [];"
        "document.addEventListener('securitypolicyviolation',"
        " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    page.context.add_init_script(watch)
    for url in [*READER_PAGES, *_admin_pages(site), "/api/docs/"]:
        page.goto(f"{base}{url}")
        page.wait_for_load_state("networkidle")
        assert page.evaluate("window.__csp") == [], url
    page.goto(f"{base}/api/docs/")
    page.wait_for_selector(".swagger-ui .info", timeout=15_000)  # Swagger UI started
    page.goto(f"{base}/paper/{PAPER}/citation-record")
    max_width = page.evaluate("getComputedStyle(document.body).maxWidth")
    assert max_width != "none"  # reader.css applied
    anonymous = new_page(browser)
    anonymous.context.add_init_script(watch)
    anonymous.goto(f"{base}/admin/login/")
    assert anonymous.evaluate("window.__csp") == []
