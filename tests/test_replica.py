"""The read replica's router (citerec/replica.py): who reads where, and when the replica is skipped.

The replica's state is given here (ReplicaStatus); tests/test_replica_streaming.py runs the same
rules against a real streaming replica.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.handlers.exception import convert_exception_to_response
from django.db import OperationalError, connections, transaction
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from citerec import replica
from citerec.caches import local_caches
from citerec.replica import PRIMARY, REPLICA, ReadRoutingMiddleware, ReplicaRouter, ReplicaStatus
from curation.models import Paper
from tests.conftest import free_port
from tests.replica_alias import replica_alias

router = ReplicaRouter()
CAUGHT_UP = ReplicaStatus(replayed=10**12, lag_seconds=0.0)


@pytest.fixture(autouse=True)
def _breaker_closed() -> Iterator[None]:
    replica.reset_breaker()
    yield
    replica.reset_breaker()


@pytest.fixture
def status(monkeypatch: pytest.MonkeyPatch) -> Callable[[ReplicaStatus | None], list[int]]:
    """Return a setter of what the replica answers; the list it returns counts the questions."""
    asked: list[int] = []

    def answer(given: ReplicaStatus | None) -> list[int]:
        def replica_status() -> ReplicaStatus | None:
            asked.append(1)
            return given

        monkeypatch.setattr(replica, "replica_status", replica_status)
        return asked

    return answer


def _serve(
    method: str = "get",
    *,
    model: type[Any] = Paper,
    before: Callable[[], None] = lambda: None,
    **headers: str,
) -> list[str]:
    """Run a request through the middleware; return where its view's reads of model went."""
    seen: list[str] = []

    def view(request: HttpRequest) -> HttpResponse:
        before()
        seen.append(router.db_for_read(model))
        seen.append(router.db_for_read(model))
        return HttpResponse("ok")

    request = getattr(RequestFactory(), method)("/paper/2412.14374", **headers)
    ReadRoutingMiddleware(view)(request)
    return seen


def test_an_anonymous_read_goes_to_a_caught_up_replica_and_asks_it_once(status: Any) -> None:
    asked = status(CAUGHT_UP)

    assert _serve() == [REPLICA, REPLICA]
    assert len(asked) == 1


def test_a_token_read_with_no_recent_write_goes_to_the_replica(status: Any) -> None:
    status(CAUGHT_UP)

    assert _serve(HTTP_AUTHORIZATION=f"Token {secrets.token_hex(8)}") == [REPLICA, REPLICA]


def test_writes_go_to_the_primary_and_so_do_the_requests_reads_after_them(status: Any) -> None:
    status(CAUGHT_UP)

    assert _serve(before=lambda: router.db_for_write(Paper)) == [PRIMARY, PRIMARY]
    assert router.db_for_write(Paper) == PRIMARY


def test_a_curator_with_a_session_reads_the_primary(status: Any) -> None:
    asked = status(CAUGHT_UP)

    assert _serve(HTTP_COOKIE="sessionid=abc") == [PRIMARY, PRIMARY]
    assert asked == []


def test_a_request_that_may_write_reads_the_primary(status: Any) -> None:
    status(CAUGHT_UP)

    assert _serve("post") == [PRIMARY, PRIMARY]


def test_accounts_and_tokens_are_read_from_the_primary(status: Any) -> None:
    status(CAUGHT_UP)

    assert _serve(model=User) == [PRIMARY, PRIMARY]


def test_outside_a_request_workers_and_commands_read_the_primary(status: Any) -> None:
    asked = status(CAUGHT_UP)

    assert router.db_for_read(Paper) == PRIMARY
    assert asked == []


def test_a_read_inside_an_atomic_block_goes_to_the_primary(
    status: Any, transactional_db: None
) -> None:
    status(CAUGHT_UP)

    def in_atomic() -> None:
        with transaction.atomic():
            assert router.db_for_read(Paper) == PRIMARY

    assert _serve(before=in_atomic) == [REPLICA, REPLICA]


def test_a_lagging_replica_is_skipped_for_anonymous_readers(status: Any, settings: Any) -> None:
    settings.REPLICA_MAX_LAG_SECONDS = 30
    status(ReplicaStatus(replayed=10**12, lag_seconds=31.0))
    assert _serve() == [PRIMARY, PRIMARY]

    status(ReplicaStatus(replayed=10**12, lag_seconds=29.0))
    assert _serve() == [REPLICA, REPLICA]


def test_a_token_client_that_wrote_reads_the_primary_until_the_replica_replayed_its_write(
    status: Any, transactional_db: None, settings: Any
) -> None:
    # The mark lives in the cache: this process's memory here, so a slow shared Redis (whose
    # timeouts drop a write, as README "Read replica" says) does not decide the test.
    settings.CACHES = local_caches({"default": 300}, f"replica-pins-{secrets.token_hex(4)}")
    credentials = {"HTTP_AUTHORIZATION": f"Token {secrets.token_hex(8)}"}
    _serve("post", **credentials)
    with connections[PRIMARY].cursor() as cursor:
        cursor.execute(replica.PRIMARY_LSN_SQL)
        (written_at,) = cursor.fetchone()

    # Not lagging by time, but not yet past the client's write: the primary.
    status(ReplicaStatus(replayed=int(written_at) - 1, lag_seconds=0.0))
    assert _serve(**credentials) == [PRIMARY, PRIMARY]
    # Another client is not held back by it.
    assert _serve(HTTP_AUTHORIZATION="Token someone-else") == [REPLICA, REPLICA]

    status(ReplicaStatus(replayed=int(written_at), lag_seconds=0.0))
    assert _serve(**credentials) == [REPLICA, REPLICA]


def test_a_replica_that_is_not_replaying_is_not_used(status: Any) -> None:
    status(None)

    assert _serve() == [PRIMARY, PRIMARY]


@pytest.fixture
def unreachable_replica(transactional_db: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Configure the replica alias at a port nobody listens on."""
    with replica_alias(
        monkeypatch, HOST="127.0.0.1", PORT=free_port(), OPTIONS={"connect_timeout": 2}
    ):
        yield


def test_a_replica_that_is_down_sends_reads_to_the_primary_and_is_not_retried_per_request(
    unreachable_replica: None,
) -> None:
    assert _serve() == [PRIMARY, PRIMARY]
    assert _serve() == [PRIMARY, PRIMARY]

    assert replica._breaker.failures == 1  # the second request did not try to connect
    assert replica._breaker.failure == OperationalError.__name__


@pytest.fixture
def replica_on_the_test_database(
    transactional_db: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Configure the replica alias as a second connection to the test database."""
    with replica_alias(monkeypatch):
        yield


def test_a_replica_lost_in_the_middle_of_a_request_has_it_served_again_from_the_primary(
    replica_on_the_test_database: None, status: Any
) -> None:
    status(CAUGHT_UP)
    served: list[str] = []

    def view(request: HttpRequest) -> HttpResponse:
        alias = router.db_for_read(Paper)
        served.append(alias)
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")
            if alias == REPLICA:  # the replica's server goes away under the request
                cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        return HttpResponse("ok")

    # As in production, an error in the view reaches the middleware as a 500 response.
    middleware = ReadRoutingMiddleware(convert_exception_to_response(view))
    response = middleware(RequestFactory().get("/paper/2412.14374"))

    assert response.status_code == 200
    assert served == [REPLICA, PRIMARY]
    assert replica._breaker.is_open


def test_a_server_that_is_not_a_replica_is_not_read_and_not_asked_again_per_request(
    replica_on_the_test_database: None,
) -> None:
    # The test database is a primary: not in recovery, so not a replica to read from.
    assert _serve() == [PRIMARY, PRIMARY]
    assert _serve() == [PRIMARY, PRIMARY]

    assert replica._breaker.failures == 1
    assert replica._breaker.failure == replica.NotReplaying.__name__
