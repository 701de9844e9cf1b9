"""Production (DEBUG=0) serves the admin's CSS and the API docs from local, pinned files:
WhiteNoise serves collected static files, and Swagger UI comes from drf-spectacular-sidecar
instead of a CDN."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.test import Client

from tests.conftest import REPO, database_url, free_port
from tests.procfile import start_procfile_process

pytestmark = pytest.mark.django_db

_ASSET = re.compile(r'(?:src|href)="([^"]+)"')


def _assets(html: str) -> list[str]:
    return _ASSET.findall(html)


def test_api_docs_load_only_local_assets(client: Client) -> None:
    page = client.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", html)  # no CDN, nothing remote
    assets = _assets(html)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets), assets
    for asset in assets:
        assert asset.startswith("/static/drf_spectacular_sidecar/"), asset
        assert client.get(asset).status_code == 200, asset


def _production_env(static_root: Path, port: int) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    environ.update(
        DEBUG="0",
        SECRET_KEY="a-real-secret-" + "x7Q!" * 16,
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",  # plain HTTP in the test; the proxy does TLS in production
        DATABASE_URL=database_url(),
        STATIC_ROOT=str(static_root),
        PORT=str(port),
    )
    return environ


@pytest.mark.parametrize("collect", [True, False], ids=["collected", "not-collected"])
def test_debug_off_serves_admin_css_and_docs(tmp_path: Path, collect: bool) -> None:
    """Served from STATIC_ROOT after collectstatic, from the apps where nobody ran it."""
    port = free_port()
    env = _production_env(tmp_path / "static", port)
    if collect:
        collected = subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--no-input", "-v", "0"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert collected.returncode == 0, collected.stderr
        assert (tmp_path / "static" / "admin" / "css" / "base.css").is_file()
    web = start_procfile_process(
        "web",
        {**env, "HOST": "127.0.0.1", "WEB_CONCURRENCY": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                login = httpx.get(f"{base}/admin/login/", timeout=5)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or web.poll() is not None:
                    pytest.fail("the Procfile's web server did not answer")
                time.sleep(0.3)
        assert login.status_code == 200
        css = [a for a in _assets(login.text) if a.endswith(".css")]
        assert "/static/admin/css/base.css" in css
        for href in css:
            response = httpx.get(f"{base}{href}", headers={"Accept-Encoding": "gzip"})
            assert response.status_code == 200, href
            assert response.headers["content-type"].startswith("text/css")
        docs = httpx.get(f"{base}/api/docs/")
        assert docs.status_code == 200
        for asset in _assets(docs.text):
            assert httpx.get(f"{base}{asset}").status_code == 200, asset
    finally:
        web.terminate()
        output, _ = web.communicate(timeout=30)
    assert "Traceback" not in output, output[-3000:]
