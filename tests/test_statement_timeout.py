"""Web processes cut a statement past WEB_STATEMENT_TIMEOUT_MS and answer 503; workers and
commands, which never load the WSGI entry point, keep theirs unlimited."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from tests.conftest import database_url
from tests.runtime_roles import RuntimeRole, runtime_role_fixture

REPO = Path(__file__).resolve().parents[1]
runtime_role = runtime_role_fixture("stmt_timeout")
SHOW_TIMEOUT = (
    "from django.db import connection\n"
    "with connection.cursor() as c:\n"
    "    c.execute('SHOW statement_timeout'); print(c.fetchone()[0])\n"
)


def statement_timeout_of(code: str, url: str) -> str:
    """Return the statement_timeout a fresh process's connection to `url` runs with after `code`."""
    environ = os.environ | {
        "DJANGO_SETTINGS_MODULE": "citerec.settings",
        "DEBUG": "1",
        "DATABASE_URL": url,
        "WEB_STATEMENT_TIMEOUT_MS": "1234",
    }
    done = subprocess.run(
        [sys.executable, "-c", code + SHOW_TIMEOUT], cwd=REPO, env=environ,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.django_db
def test_the_wsgi_entry_point_limits_statements_and_other_processes_do_not(
    runtime_role: RuntimeRole,
) -> None:
    # As production connects: the web and the workers as the runtime role.
    web = statement_timeout_of("import citerec.wsgi\n", runtime_role.url())
    command = statement_timeout_of("import django; django.setup()\n", runtime_role.url())
    owner = statement_timeout_of("import django; django.setup()\n", database_url())

    assert web == "1234ms"
    assert command == owner == "0"


@pytest.fixture
def cut_statements(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make this connection cut statements at 50 ms, and the views' next read a slow one."""
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 50")

    def slow(*args: Any, **kwargs: Any) -> Any:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(5)")

    monkeypatch.setattr("api.views.root.check_query_params", slow)
    monkeypatch.setattr("curation.admin.observations.text_search", slow)


@pytest.mark.django_db
def test_a_cut_statement_answers_503_in_json_under_the_api(cut_statements: None) -> None:
    response = Client(raise_request_exception=False).get("/api/v1/")

    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response["Retry-After"] == "30"
    assert response.json()["error"]["code"] == "statement_timeout"


@pytest.mark.django_db
def test_a_cut_statement_answers_a_503_page_in_the_admin(
    admin_client: Client, cut_statements: None
) -> None:
    admin_client.raise_request_exception = False

    response = admin_client.get("/admin/curation/observation/?q=apex")

    assert response.status_code == 503
    assert response["Content-Type"].startswith("text/html")
    assert "narrow it" in response.content.decode()
