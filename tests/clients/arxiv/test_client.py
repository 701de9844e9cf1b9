"""GetRecord metadata and e-prints: the store first, the cap, offline, identity, settings."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, date, datetime

import httpx2
import pytest

from curation.clients.arxiv import (
    ArxivClient,
    ArxivNotFound,
    ArxivOffline,
    EprintTooLarge,
    SourceStore,
)
from curation.clients.crossref.throttle import LocalThrottle, RedisThrottle
from tests.clients.arxiv.fake_arxiv import DEV_SOURCES, MINIMAL_PDF, FakeArxiv, gzipped

TAR_GZ = DEV_SOURCES / "dawe__schist-paper.tar.gz"
ONE_FILE_GZ = DEV_SOURCES / "kdpenner__dustmorph.gz"
needs_dev_sources = pytest.mark.skipif(
    not TAR_GZ.exists(), reason=f"no dev archives at {DEV_SOURCES}"
)


# --- metadata (GetRecord) ------------------------------------------------------------------


def test_metadata_is_one_get_record(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_record(
        "2401.00001", title="Sparse\n  attention", categories="cs.LG stat.ML",
        datestamp=date(2024, 1, 9), versions=[(datetime(2024, 1, 1, 12, tzinfo=UTC), "1mb")],
        doi="10.1000/xyz", journal_ref="J. Stuff 1 (2024) 2",
    )  # fmt: skip
    paper = fake_arxiv.client().metadata("arXiv:2401.00001v3")
    assert (paper.arxiv_id, paper.title, paper.categories) == (
        "2401.00001",
        "Sparse attention",
        ["cs.LG", "stat.ML"],
    )
    assert (paper.datestamp, paper.doi, paper.journal_ref) == (
        date(2024, 1, 9),
        "10.1000/xyz",
        "J. Stuff 1 (2024) 2",
    )
    assert [(v.version, v.submitted_at, v.size) for v in paper.versions] == [
        (1, datetime(2024, 1, 1, 12, tzinfo=UTC), "1mb")
    ]
    (request,) = fake_arxiv.requests("oai")
    assert dict(request.args) == {
        "verb": "GetRecord", "identifier": "oai:arXiv.org:2401.00001", "metadataPrefix": "arXivRaw",
    }  # fmt: skip


def test_metadata_of_an_old_style_id(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_record("hep-th/9901001")
    assert fake_arxiv.client().metadata("hep-th/9901001").arxiv_id == "hep-th/9901001"


def test_metadata_of_an_unknown_paper_is_not_found(fake_arxiv: FakeArxiv) -> None:
    with pytest.raises(ArxivNotFound, match="arXiv has no paper 2401.99999"):
        fake_arxiv.client().metadata("2401.99999")


def test_metadata_of_a_deleted_paper_is_not_found(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_deleted("2401.00001")
    with pytest.raises(ArxivNotFound, match="deleted"):
        fake_arxiv.client().metadata("2401.00001")


def test_metadata_of_something_not_an_id_asks_nobody(fake_arxiv: FakeArxiv) -> None:
    with pytest.raises(ArxivNotFound, match="not an arXiv id"):
        fake_arxiv.client().metadata("../../etc/passwd")
    assert fake_arxiv.count() == 0


# --- e-prints ------------------------------------------------------------------------------


@needs_dev_sources
def test_an_eprint_is_fetched_once_then_read_from_the_store(fake_arxiv: FakeArxiv) -> None:
    body = fake_arxiv.add_eprint("2401.00001", TAR_GZ, version=2)
    client = fake_arxiv.client()
    first = client.fetch_eprint("2401.00001", 2)
    assert (first.data, first.sha256, first.from_store) == (
        body,
        hashlib.sha256(body).hexdigest(),
        False,
    )
    assert first.content_type == "application/gzip"
    assert fake_arxiv.requests("eprint")[0].path == "/e-print/2401.00001v2"
    again = fake_arxiv.client().fetch_eprint("2401.00001", 2)  # another worker, same store
    assert (again.data, again.sha256, again.from_store, again.content_type) == (
        body, first.sha256, True, "application/gzip"
    )  # fmt: skip
    assert fake_arxiv.count() == 1  # no new request


@needs_dev_sources
def test_the_latest_eprint_is_indexed_under_the_version_arxiv_served(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_eprint("2401.00001", ONE_FILE_GZ, version=1)
    body = fake_arxiv.add_eprint("2401.00001", TAR_GZ, version=3)
    client = fake_arxiv.client()
    assert client.fetch_eprint("2401.00001").data == body
    assert fake_arxiv.requests("eprint")[0].path == "/e-print/2401.00001"
    assert client.fetch_eprint("2401.00001", 3).from_store  # Content-Disposition named v3
    assert client.fetch_eprint("2401.00001").from_store
    assert fake_arxiv.count() == 1


def test_an_old_style_eprint_and_a_pdf(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_eprint("hep-th/9901001", MINIMAL_PDF, version=1)
    eprint = fake_arxiv.client().fetch_eprint("hep-th/9901001v1")
    assert (eprint.data, eprint.content_type) == (MINIMAL_PDF, "application/pdf")
    assert fake_arxiv.requests("eprint")[0].path == "/e-print/hep-th/9901001v1"


def test_an_unknown_eprint_is_not_found(fake_arxiv: FakeArxiv) -> None:
    with pytest.raises(ArxivNotFound, match="2401.99999v1"):
        fake_arxiv.client().fetch_eprint("2401.99999", 1)


def test_an_eprint_past_the_cap_is_refused_naming_paper_and_cap(
    fake_arxiv: FakeArxiv, settings
) -> None:
    settings.CITEREC_MAX_EPRINT_BYTES = 1024
    fake_arxiv.add_eprint("2401.00001", gzipped("x" * 100_000) + b"\0" * 2000, version=1)
    client = fake_arxiv.client()
    with pytest.raises(
        EprintTooLarge, match=r"arXiv:2401.00001v1: .* larger than the 1,024 bytes cap"
    ):
        client.fetch_eprint("2401.00001", 1)
    assert client.store.lookup("2401.00001", 1) is None
    assert fake_arxiv.count() == 1  # refused, not retried


class EndlessBody(httpx2.SyncByteStream):
    """A body with no Content-Length that never ends; counts the chunks read."""

    def __init__(self) -> None:
        self.chunks = 0

    def __iter__(self) -> Iterator[bytes]:
        while True:
            self.chunks += 1
            yield b"\0" * 65536


def test_reading_stops_at_the_cap_without_content_length(fake_arxiv: FakeArxiv) -> None:
    body = EndlessBody()
    client = fake_arxiv.client(
        max_eprint_bytes=1024 * 1024,
        transport=httpx2.MockTransport(lambda request: httpx2.Response(200, stream=body)),
    )
    with pytest.raises(EprintTooLarge, match="1 MiB cap"):
        client.fetch_eprint("2401.00001", 1)
    assert body.chunks == 17  # 16 chunks make 1 MiB; the 17th passes it and reading stops


def test_offline_fetch_sends_nothing_but_the_store_still_serves(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_eprint("2401.00001", b"%PDF-1.4 stored", version=1)
    fake_arxiv.client().fetch_eprint("2401.00001", 1)
    offline = fake_arxiv.client(offline=True)
    assert offline.fetch_eprint("2401.00001", 1).from_store
    assert offline.fetch_eprint("2401.00001").from_store  # the latest the store has
    with pytest.raises(ArxivOffline, match="2401.00002v1 .not in the store"):
        offline.fetch_eprint("2401.00002", 1)
    with pytest.raises(ArxivOffline):
        offline.metadata("2401.00001")
    assert fake_arxiv.count() == 1


def test_a_corrupt_stored_eprint_is_fetched_again(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_eprint("2401.00001", b"%PDF-1.4 original", version=1)
    client = fake_arxiv.client()
    first = client.fetch_eprint("2401.00001", 1)
    client.store.object_path(first.sha256).write_bytes(b"%PDF-1.4 damaged")
    again = client.fetch_eprint("2401.00001", 1)
    assert (again.data, again.from_store) == (b"%PDF-1.4 original", False)
    assert fake_arxiv.count() == 2


def test_a_503_on_an_eprint_is_retried_after_the_wait(fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add_eprint("2401.00001", b"%PDF-1.4", version=1)
    fake_arxiv.fail_next(503, retry_after="12")
    assert fake_arxiv.client().fetch_eprint("2401.00001", 1).data == b"%PDF-1.4"
    assert fake_arxiv.clock.sleeps == [12.0]


# --- identity and settings -----------------------------------------------------------------


def test_every_request_names_the_deployment_and_its_contact(
    fake_arxiv: FakeArxiv, settings
) -> None:
    settings.CITEREC_BASE_URL = "https://citerec.example.org"
    fake_arxiv.add_record("2401.00001")
    fake_arxiv.add_eprint("2401.00001", b"%PDF-1.4", version=1)
    client = fake_arxiv.client()
    client.metadata("2401.00001")
    client.fetch_eprint("2401.00001", 1)
    (agent,) = fake_arxiv.user_agents()
    assert agent.startswith("citerec/")
    assert agent.endswith("(+https://citerec.example.org; mailto:curators@example.org)")


def test_the_contact_falls_back_to_the_crossref_mailto(settings) -> None:
    settings.ARXIV_CONTACT, settings.CROSSREF_MAILTO = "", "ops@example.org"
    assert ArxivClient(offline=True).user_agent.endswith("mailto:ops@example.org)")


def test_settings_drive_the_defaults(settings, tmp_path) -> None:
    settings.ARXIV_OAI_URL = "https://oai.example.org/oai/"
    settings.ARXIV_EPRINT_URL = "https://eprints.example.org/e-print"
    settings.ARXIV_REQUEST_INTERVAL = 4.0
    settings.CITEREC_SOURCE_STORE = tmp_path
    settings.CITEREC_MAX_EPRINT_BYTES = 5
    settings.REDIS_URL = ""
    client = ArxivClient()
    assert (client.oai_url, client.eprint_url) == (
        "https://oai.example.org/oai",
        "https://eprints.example.org/e-print",
    )
    assert client.store.root == tmp_path and client.max_eprint_bytes == 5
    assert isinstance(client.throttle, LocalThrottle) and client.throttle.interval == pytest.approx(
        4.0
    )


@pytest.mark.parametrize("prefix", ["ci-run-7", ""])
def test_the_redis_throttle_key_carries_the_deployment_prefix(settings, prefix: str) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:6379/14"  # never contacted: only the key is read
    settings.REDIS_KEY_PREFIX = prefix
    throttle = ArxivClient(offline=True).throttle
    assert isinstance(throttle, RedisThrottle)
    assert throttle.key == (f"{prefix}:" if prefix else "") + "citerec:throttle:arxiv"


def test_a_client_built_offline_opens_no_connection(settings, tmp_path) -> None:
    client = ArxivClient(offline=True, store=SourceStore(tmp_path))
    with pytest.raises(ArxivOffline):
        client.fetch_eprint("2401.00001")
    client.close()
    assert "_eprint_http" not in client.__dict__
