"""Production hardening of the web faces: admin sessions end, the API is JSON only.

Settings are read once, at start, from the environment: the DEBUG=0 cases run a fresh Python
process with production values (no database is reached).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "pw-Xk2!long-enough"

# Asked by a fresh process: how the API answers a browser, and the session settings.
_PROBE = """
import json, django
django.setup()
from django.conf import settings
from django.test import Client
response = Client().get("/api/v1/", HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
print(json.dumps({
    "status": response.status_code,
    "type": response["Content-Type"],
    "renderers": settings.REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"],
    "session_age": settings.SESSION_COOKIE_AGE,
    "at_browser_close": settings.SESSION_EXPIRE_AT_BROWSER_CLOSE,
}))
"""


def _probe(**env: str) -> dict[str, object]:
    environ = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")}
    environ.update(
        DJANGO_SETTINGS_MODULE="citerec.settings",
        SECRET_KEY="a-real-secret-" + "x7Q!" * 16,
        DATABASE_URL="postgresql://postgres@127.0.0.1:5432/citerec_never_reached",
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="0",
        **env,
    )
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=REPO, env=environ, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_the_browsable_api_answers_json_with_debug_off() -> None:
    production = _probe(DEBUG="0")
    development = _probe(DEBUG="1")

    assert production["renderers"] == ["rest_framework.renderers.JSONRenderer"]
    assert production["status"] == 200 and production["type"] == "application/json"
    assert development["type"].startswith("text/html")  # type: ignore[union-attr]


def test_session_age_comes_from_the_environment() -> None:
    default = _probe(DEBUG="0")
    short = _probe(
        DEBUG="0", SESSION_COOKIE_AGE_SECONDS="3600", SESSION_EXPIRE_AT_BROWSER_CLOSE="1"
    )

    assert default["session_age"] == 12 * 3600 and default["at_browser_close"] is False
    assert short["session_age"] == 3600 and short["at_browser_close"] is True


@pytest.mark.django_db
def test_an_admin_login_lasts_twelve_hours_not_two_weeks() -> None:
    get_user_model().objects.create_superuser("ada", "ada@example.org", PASSWORD)
    client = Client()

    response = client.post("/admin/login/", {"username": "ada", "password": PASSWORD})

    assert response.status_code == 302
    assert response.cookies["sessionid"]["max-age"] == 12 * 3600
    assert client.session.get_expiry_age() == 12 * 3600
