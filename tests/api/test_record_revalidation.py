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
from django.urls import Resolver404, URLResolver, get_resolver, resolve, reverse
from rest_framework.test import APIClient

from api.views.records import RecordView
from citerec import wsgi
from curation import views
from curation.record.http import JSON_ETAG_SUFFIX, PAGE_ETAG_SUFFIX
from curation.record.revalidation import REVALIDATED
from curation.references.identifiers import looks_like_arxiv_id

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


def test_the_version_read_is_a_prepared_statement(anon: APIClient, sample: dict[str, Any]) -> None:
    from curation.record.selectors import record_version

    etag = anon.get(API)["ETag"]
    versions = {record_version("2412.14374") for _ in range(8)}
    assert wsgi_get(API, HTTP_IF_NONE_MATCH=etag)[0] == 304

    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [statement for (statement,) in cursor.fetchall()]
    assert len(versions) == 1 and None not in versions
    assert any("record_recordversion" in statement for statement in prepared), prepared


def _routes(patterns: list[Any], namespace: str = "") -> Any:
    """Yield (view name, view) of every route of the project, includes walked."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _routes(pattern.url_patterns, inner)
        else:
            yield f"{namespace}{pattern.name}", pattern.callback


def _serves_a_record(view: Any) -> bool:
    record_views = (views.citation_record_json, views.citation_record_page)
    return view in record_views or getattr(view, "view_class", None) is RecordView


def test_every_route_serving_a_record_is_revalidated_in_front_of_django() -> None:
    """A record route added or renamed in curation/urls.py or api/urls.py fails here until the
    wrapper's REVALIDATED names it (the paths themselves are read from the resolver)."""
    serving = {
        name for name, view in _routes(get_resolver().url_patterns) if _serves_a_record(view)
    }
    assert serving == set(REVALIDATED)


@pytest.mark.parametrize(
    ("name", "suffix"),
    [("api:record", JSON_ETAG_SUFFIX), ("citation-record-json", JSON_ETAG_SUFFIX),
     ("citation-record", PAGE_ETAG_SUFFIX)],
)  # fmt: skip
@pytest.mark.parametrize("arxiv_id", ["2412.14374", "hep-th/9901001v2"])
def test_the_wrapper_matches_the_record_routes_where_they_are(
    name: str, suffix: str, arxiv_id: str
) -> None:
    path = reverse(name, kwargs={"arxiv_id": arxiv_id})
    assert wsgi.application.record_route(path) == (arxiv_id, suffix)
    for other in (path + "/", path + "x", "/api/v1/papers/" + arxiv_id, "/paper/" + arxiv_id):
        assert wsgi.application.record_route(other) is None, other


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/records/2412.14374",
        "/api/v1/records/hep-th/9901001v2",
        "/api/v1/records/2412.14374v3",
        "/api/v1/records/2412.14374/",
        "/api/v1/records/",
        "/api/v1/records",
        "/api/v1/papers/2412.14374",
        "/api/v1/records/2412.14374/citation-record",
        "/paper/2412.14374/citation-record",
        "/paper/2412.14374/citation-record.json",
        "/paper/math.GT/0309136/citation-record",
        "/paper/2412.14374/citation-record.jsonx",
        "/paper/2412.14374/citation-record/",
        "/paper/2412.14374",
        "/paper//citation-record",
        "/paper/a/b/c/citation-record",
        "/paper/2412.14374/integrity.json",
        "/admin/paper/2412.14374/citation-record",
        "/schema/pith.paper-citation-record.v1.json",
        "/api/paper/2412.14374/citation-record",
        "/paper/2412.14374/citation-record\n",
    ],
)
def test_the_wrapper_matches_what_djangos_resolver_routes_to_a_record(path: str) -> None:
    """The joined patterns the wrapper reads from the URLconf agree with resolve() itself."""
    try:
        match = resolve(path)
        expected = match.view_name in REVALIDATED and looks_like_arxiv_id(match.kwargs["arxiv_id"])
    except Resolver404:
        expected = False
    assert (wsgi.application.record_route(path) is not None) == expected


@pytest.mark.parametrize("name", sorted(REVALIDATED))
def test_each_record_route_is_answered_in_front_of_django(
    anon: APIClient, sample: dict[str, Any], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    path = reverse(name, kwargs={"arxiv_id": "2412.14374"})
    etag = anon.get(path)["ETag"]
    monkeypatch.setattr(wsgi.application, "application", _must_not_reach_django)

    status, _, body = wsgi_get(path, HTTP_IF_NONE_MATCH=etag)
    assert (status, body) == (304, b"")
