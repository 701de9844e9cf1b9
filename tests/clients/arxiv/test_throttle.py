"""One arXiv rate for the whole deployment: clients on one Redis take turns, 3 s apart."""

from __future__ import annotations

import uuid

import pytest
import redis

from curation.clients.arxiv import ArxivClient
from curation.clients.crossref.throttle import RedisThrottle
from tests.clients.arxiv.fake_arxiv import FakeArxiv

pytestmark = pytest.mark.services


def test_two_clients_on_one_redis_space_their_requests(
    fake_arxiv: FakeArxiv, redis_url: str, settings
) -> None:
    settings.REDIS_URL = redis_url
    settings.REDIS_KEY_PREFIX = f"test-arxiv-{uuid.uuid4().hex}"
    settings.ARXIV_REQUEST_INTERVAL = 3.0
    for n in range(1, 4):
        fake_arxiv.add_eprint(f"2401.0000{n}", f"%PDF-1.4 paper {n}".encode(), version=1)
    now = 1_767_225_600.0  # a frozen clock: each wait is the slot the client was given

    def client(waits: list[float]) -> ArxivClient:
        return ArxivClient(clock=lambda: now, sleep=waits.append)

    waits_one: list[float] = []
    waits_two: list[float] = []
    one, two = client(waits_one), client(waits_two)
    assert isinstance(one.throttle, RedisThrottle) and isinstance(two.throttle, RedisThrottle)
    assert (
        one.throttle.key
        == two.throttle.key
        == f"{settings.REDIS_KEY_PREFIX}:citerec:throttle:arxiv"
    )
    server = redis.Redis.from_url(redis_url)
    try:
        one.fetch_eprint("2401.00001", 1)  # slot now
        two.fetch_eprint("2401.00002", 1)  # slot now + 3
        one.fetch_eprint("2401.00003", 1)  # slot now + 6
        assert (waits_one, waits_two) == ([6.0], [3.0])
        assert float(server.get(one.throttle.key) or 0) == pytest.approx(now + 9.0)
        # A Retry-After seen by one client holds back the other.
        one.throttle.block(60)
        two.throttle.wait()
        assert waits_two == [3.0, 60.0]
    finally:
        server.delete(one.throttle.key)
    assert fake_arxiv.count("eprint") == 3
