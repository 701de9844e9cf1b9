"""Record revalidations answered in front of Django (citerec.wsgi.application), as the web runs.

The Django test client enters below the WSGI wrapper, so these tests call the WSGI application
itself, the way the Procfile's granian and runserver do.
"""

from __future__ import annotations

import io
import sys
from typing import Any

import pytest
from django.core import signals
from django.db import OperationalError, close_old_connections, connection, connections
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from citerec import wsgi

pytestmark = pytest.mark.django_db

API = "/api/v1/records/2412.14374"
JSON_URL = "/paper/2412.14374/citation-record.json"
PAGE = "/paper/2412.14374/citation-record"


@pytest.fixture(autouse=True)
def fresh_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection as at the start of a request: not past CONN_MAX_AGE, no error seen.

    The test's connection lives for the whole session (the test client keeps Django from
    recycling it), so its CONN_MAX_AGE deadline has long passed.
    """
    monkeypatch.setattr(connections["default"], "close_at", None)
    monkeypatch.setattr(connections["default"], "errors_occurred", False)


def wsgi_get(path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """GET path through the WSGI application; headers as WSGI keys (HTTP_IF_NONE_MATCH=...)."""
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path.split("?")[0],
        "QUERY_STRING": path.partition("?")[2],
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "HTTP_HOST": "testserver",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        **headers,
    }
    started: dict[str, Any] = {}

    def start_response(status: str, response_headers: list[tuple[str, str]], *_: Any) -> None:
        started.update(status=int(status.split()[0]), headers=dict(response_headers))

    # As Django's test client does: the test's transaction outlives the request.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        result = wsgi.application(environ, start_response)
        try:
            body = b"".join(result)
        finally:
            getattr(result, "close", lambda: None)()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
    return started["status"], started["headers"], body


def count_django_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Return the list of paths the wrapper sends on to Django from now on."""
    calls: list[str] = []

    def counting(environ: dict[str, Any], start_response: Any) -> Any:
        calls.append(environ["PATH_INFO"])
        return wsgi.django_application(environ, start_response)

    monkeypatch.setattr(wsgi.application, "application", counting)
    return calls


def _must_not_reach_django(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("a current ETag is answered in front of Django")


def test_a_current_etag_is_answered_in_front_of_django_with_the_same_headers(
    anon: APIClient, sample: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    etag = anon.get(API)["ETag"]
    through_django = anon.get(API, HTTP_IF_NONE_MATCH=etag)  # the views' own 304
    monkeypatch.setattr(wsgi.application, "application", _must_not_reach_django)
    monkeypatch.setattr("curation.record.cache.build_record", _must_not_reach_django)

    for path in (API, JSON_URL):
        with CaptureQueriesContext(connection) as queries:
            status, headers, body = wsgi_get(path, HTTP_IF_NONE_MATCH=etag)
        assert (status, body, len(queries)) == (304, b"", 1)  # the version, nothing else
        # ETag, Cache-Control, security headers (the server sets the length of the empty body)
        assert headers == {k: v for k, v in through_django.items() if k != "Content-Length"}
        assert headers["ETag"] == etag and headers["X-Content-Type-Options"] == "nosniff"


def test_the_page_has_its_own_etag_in_front_of_django(
    anon: APIClient, sample: dict[str, Any]
) -> None:
    json_etag = anon.get(API)["ETag"]
    page_etag = anon.get(PAGE)["ETag"]

    assert wsgi_get(PAGE, HTTP_IF_NONE_MATCH=page_etag)[0] == 304
    assert wsgi_get(PAGE, HTTP_IF_NONE_MATCH=json_etag)[0] == 200
    assert wsgi_get(JSON_URL, HTTP_IF_NONE_MATCH=page_etag)[0] == 200


@pytest.mark.parametrize(
    "path, headers",
    [
        (API, {"HTTP_IF_NONE_MATCH": 'W/"sha256:0"'}),  # stale
        (API + "?format=json", {}),  # a query string: the API's own answer (400)
        (API, {"HTTP_AUTHORIZATION": "Token nope"}),  # credentials: DRF decides
        (API, {"HTTP_COOKIE": "sessionid=abc"}),  # a session: DRF decides
        ("/api/v1/records/2999.99999", {}),  # unknown paper: the API's 404
    ],
)
def test_anything_else_goes_on_to_django(
    anon: APIClient,
    sample: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    path: str,
    headers: dict[str, str],
) -> None:
    etag = anon.get(API)["ETag"]
    headers = {"HTTP_IF_NONE_MATCH": etag, **headers}
    expected = anon.generic("GET", path, **headers)
    calls = count_django_calls(monkeypatch)

    status, _, body = wsgi_get(path, **headers)

    assert (status, body) == (expected.status_code, expected.content)
    assert calls == [path.split("?")[0]]


def test_a_database_error_goes_on_to_django_which_recovers(
    anon: APIClient, sample: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from curation.record import revalidation

    etag = anon.get(API)["ETag"]
    real = revalidation.record_version
    failed: list[str] = []

    def fails_once(arxiv_id: str) -> Any:
        if not failed:
            failed.append(arxiv_id)
            raise OperationalError("server closed the connection unexpectedly")
        return real(arxiv_id)

    monkeypatch.setattr(revalidation, "record_version", fails_once)
    calls = count_django_calls(monkeypatch)

    assert wsgi_get(API, HTTP_IF_NONE_MATCH=etag)[0] == 304  # answered by the views
    assert wsgi_get(API, HTTP_IF_NONE_MATCH=etag)[0] == 304  # and in front of Django again
    assert calls == [API]


def test_a_connection_due_for_recycling_goes_on_to_django(
    anon: APIClient, sample: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    etag = anon.get(API)["ETag"]
    calls = count_django_calls(monkeypatch)
    monkeypatch.setattr(connections["default"], "errors_occurred", True)

    assert wsgi_get(API, HTTP_IF_NONE_MATCH=etag)[0] == 304
    assert calls == [API]


def test_a_revalidation_counts_once_against_the_anonymous_rate(
    anon: APIClient, sample: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "3/min", "user": "9/min"})
    etag = anon.get(API)["ETag"]  # 1
    assert wsgi_get(API, HTTP_IF_NONE_MATCH=etag)[0] == 304  # 2: in front of Django
    assert wsgi_get(API, HTTP_IF_NONE_MATCH='W/"sha256:0"')[0] == 200  # 3: through both layers
    status, headers, body = wsgi_get(API, HTTP_IF_NONE_MATCH=etag)

    assert status == 429 and "Retry-After" in headers



def test_the_version_read_is_a_prepared_statement(
    anon: APIClient, sample: dict[str, Any]
) -> None:
    from curation.record.selectors import record_version

    etag = anon.get(API)["ETag"]
    versions = {record_version("2412.14374") for _ in range(8)}
    assert wsgi_get(API, HTTP_IF_NONE_MATCH=etag)[0] == 304

    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [statement for (statement,) in cursor.fetchall()]
    assert len(versions) == 1 and None not in versions
    assert any("record_recordversion" in statement for statement in prepared), prepared
