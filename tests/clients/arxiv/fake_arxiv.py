"""A fake arXiv on pytest-httpserver: OAI-PMH (arXivRaw) and e-prints, never the internet.

The `fake_arxiv` fixture (tests/clients/arxiv/conftest.py) points ARXIV_OAI_URL and
ARXIV_EPRINT_URL at it, sets ARXIV_REQUEST_INTERVAL=0 and a temporary CITEREC_SOURCE_STORE.
Typical use:

    def test_paper(fake_arxiv):
        fake_arxiv.add_record("2401.00001", title="Deep nets", versions=2)
        fake_arxiv.add_eprint("2401.00001", DEV_SOURCES / "dawe__schist-paper.tar.gz", version=2)
        client = fake_arxiv.client()            # waits on a fake clock: nothing really sleeps
        client.fetch_eprint("2401.00001", 2)
        assert fake_arxiv.count("eprint") == 1
        assert fake_arxiv.clock.sleeps == []    # what the client asked to wait, in seconds

What it serves, shaped like arXiv's answers:
- `GET /oai?verb=ListRecords&metadataPrefix=arXivRaw[&from&until&set]`: the records added
  (deleted ones with `<header status="deleted">`) whose datestamp and set match, `page_size`
  per page, with resumption tokens (`<resumptionToken cursor completeListSize>`, empty on the
  last page); `noRecordsMatch` when none match, `badResumptionToken` for a token it never gave.
- `GET /oai?verb=GetRecord&identifier=oai:arXiv.org:ID&metadataPrefix=arXivRaw`, or
  `idDoesNotExist`.
- `GET /e-print/ID` and `/e-print/IDvN`: the bytes registered (the latest version for a bare
  id), with Content-Type and a Content-Disposition naming the version; 404 otherwise.
- `fail_next(503, retry_after="7")`: the next request (whatever it asks) gets that answer.
"""

from __future__ import annotations

import gzip
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from curation.clients.arxiv import ArxivClient
from curation.clients.crossref.throttle import LocalThrottle

DEV_SOURCES = Path(__file__).resolve().parents[4] / "shared" / "data" / "arxiv-sources"
# The smallest PDF readers accept: what arXiv serves for a paper submitted as a PDF only.
MINIMAL_PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)
_NEW_STYLE_ARCHIVES = {"cs", "math", "q-bio", "q-fin", "stat", "eess", "econ"}
_OAI_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ '
    'http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">\n'
)


class FakeClock:
    """A clock whose sleep records the wait and moves time on (no test waits for real)."""

    def __init__(self, start: float = 1_767_225_600.0) -> None:  # 2026-01-01T00:00:00Z
        self.now = start
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@dataclass
class FakeRecord:
    """One record the fake serves: its header fields and its `<record>` XML."""

    arxiv_id: str
    datestamp: date
    set_spec: str
    xml: str
    deleted: bool = False


def set_spec_of(category: str) -> str:
    """Return arXiv's OAI set for a primary category: 'cs.LG' -> 'cs', 'hep-th' -> 'physics:hep-th'."""
    archive = category.split(".")[0]
    return archive if archive in _NEW_STYLE_ARCHIVES else f"physics:{archive}"


class FakeArxiv:
    """Serve arXiv's OAI-PMH (arXivRaw) and e-prints from what the test registers."""

    def __init__(self, server: HTTPServer, *, page_size: int = 2) -> None:
        self.server = server
        self.page_size = page_size
        self.clock = FakeClock()
        self.records: dict[str, FakeRecord] = {}
        self.eprints: dict[tuple[str, int], tuple[bytes, str]] = {}
        self._faults: list[tuple[int, dict[str, str]]] = []
        self._tokens: dict[str, tuple[list[str], int]] = {}
        self._token_numbers = itertools.count(6960524)
        server.expect_request("/oai").respond_with_handler(self._oai)
        server.expect_request(re.compile(r"^/e-print/.+")).respond_with_handler(self._eprint)

    # --- what a test registers ------------------------------------------------------------

    def add_record(
        self,
        arxiv_id: str,
        *,
        title: str = "Calculation of prompt diphoton production cross sections at Tevatron and\n  LHC energies",
        authors: str = "C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan",
        categories: str = "hep-ph",
        datestamp: date = date(2024, 1, 3),
        versions: int | Sequence[tuple[datetime, str]] = 1,
        abstract: str = "  A fully differential calculation in perturbative quantum chromodynamics is\n"
        "presented for the production of massive photon pairs at hadron colliders.\n",
        comments: str | None = "37 pages, 15 figures; published version",
        journal_ref: str | None = None,
        doi: str | None = None,
        report_no: str | None = None,
        license: str | None = "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
        submitter: str = "Pavel Nadolsky",
        set_spec: str | None = None,
    ) -> FakeRecord:
        """Register a paper's arXivRaw record (versions: a count, or (date, size) pairs)."""
        if isinstance(versions, int):
            first = datetime(2024, 1, 2, 19, 18, 42, tzinfo=UTC)
            versions = [(first + timedelta(days=7 * n), f"{424 + n}kb") for n in range(versions)]
        parts = [f"<id>{escape(arxiv_id)}</id>", f"<submitter>{escape(submitter)}</submitter>"]
        for number, (when, size) in enumerate(versions, 1):
            parts.append(
                f'<version version="v{number}"><date>{format_datetime(when, usegmt=True)}</date>'
                f"<size>{escape(size)}</size><source_type>D</source_type></version>"
            )
        parts += [f"<title>{escape(title)}</title>", f"<authors>{escape(authors)}</authors>"]
        parts.append(f"<categories>{escape(categories)}</categories>")
        optional = [
            ("comments", comments),
            ("report-no", report_no),
            ("journal-ref", journal_ref),
            ("doi", doi),
            ("license", license),
        ]
        parts += [f"<{tag}>{escape(value)}</{tag}>" for tag, value in optional if value]
        parts.append(f"<abstract>{escape(abstract)}</abstract>")
        spec = set_spec or set_spec_of(categories.split()[0])
        metadata = (
            '<metadata>\n <arXivRaw xmlns="http://arxiv.org/OAI/arXivRaw/" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'xsi:schemaLocation="http://arxiv.org/OAI/arXivRaw/ http://arxiv.org/OAI/arXivRaw.xsd">'
            + "".join(parts)
            + "</arXivRaw>\n</metadata>\n"
        )
        record = FakeRecord(
            arxiv_id, datestamp, spec, _record_xml(arxiv_id, datestamp, spec, metadata)
        )
        self.records[arxiv_id] = record
        return record

    def add_deleted(
        self, arxiv_id: str, *, datestamp: date = date(2024, 1, 3), set_spec: str = "cs"
    ) -> FakeRecord:
        """Register a record arXiv reports deleted."""
        record = FakeRecord(
            arxiv_id, datestamp, set_spec, _record_xml(arxiv_id, datestamp, set_spec, None), True
        )
        self.records[arxiv_id] = record
        return record

    def add_eprint(
        self,
        arxiv_id: str,
        data: bytes | Path,
        *,
        version: int = 1,
        content_type: str | None = None,
    ) -> bytes:
        """Register the source of one version (bytes, or a file such as a dev archive)."""
        body = data.read_bytes() if isinstance(data, Path) else data
        self.eprints[(arxiv_id, version)] = (body, content_type or _content_type(body))
        return body

    def fail_next(
        self, status: int = 503, *, retry_after: str | None = None, times: int = 1
    ) -> None:
        """Answer the next `times` requests (OAI or e-print) with this status instead."""
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        self._faults += [(status, headers)] * times

    def client(self, **kwargs: Any) -> ArxivClient:
        """Return an ArxivClient for this fake whose waits go to `self.clock` (no real sleep)."""
        kwargs.setdefault(
            "throttle", LocalThrottle(0, clock=self.clock.time, sleep=self.clock.sleep)
        )
        kwargs.setdefault("clock", self.clock.time)
        kwargs.setdefault("sleep", self.clock.sleep)
        return ArxivClient(**kwargs)

    # --- what a test checks ---------------------------------------------------------------

    def requests(self, kind: str | None = None) -> list[Request]:
        """Return the requests received: all, or only 'oai' or only 'eprint' ones."""
        prefix = {None: "/", "oai": "/oai", "eprint": "/e-print/"}[kind]
        return [request for request, _ in self.server.log if request.path.startswith(prefix)]

    def count(self, kind: str | None = None) -> int:
        """Return how many requests of that kind were received."""
        return len(self.requests(kind))

    def user_agents(self) -> set[str]:
        """Return the User-Agent headers the requests carried."""
        return {request.headers.get("User-Agent", "") for request in self.requests()}

    # --- the server side ------------------------------------------------------------------

    def _fault(self) -> Response | None:
        if not self._faults:
            return None
        status, headers = self._faults.pop(0)
        return Response("Retry later", status=status, headers=headers, content_type="text/plain")

    def _oai(self, request: Request) -> Response:
        fault = self._fault()
        if fault:
            return fault
        args = request.args
        verb = args.get("verb", "")
        if verb == "ListRecords":
            return self._list_records(request)
        if verb == "GetRecord":
            if args.get("metadataPrefix") != "arXivRaw":
                return _oai_error(request, "cannotDisseminateFormat", "only arXivRaw here")
            identifier = args.get("identifier", "")
            record = self.records.get(identifier.removeprefix("oai:arXiv.org:"))
            if record is None:
                return _oai_error(request, "idDoesNotExist", f"Id {identifier} does not exist")
            return _oai_answer(request, f"<GetRecord>\n{record.xml}</GetRecord>\n")
        return _oai_error(request, "badVerb", f"Illegal verb {verb!r}")

    def _list_records(self, request: Request) -> Response:
        args = request.args
        token = args.get("resumptionToken")
        if token is not None:
            if set(args) != {"verb", "resumptionToken"}:
                return _oai_error(request, "badArgument", "resumptionToken is exclusive")
            if token not in self._tokens:
                return _oai_error(request, "badResumptionToken", f"Bad resumptionToken {token}")
            ids, offset = self._tokens[token]
        else:
            if args.get("metadataPrefix") != "arXivRaw":
                return _oai_error(request, "cannotDisseminateFormat", "only arXivRaw here")
            ids = [
                r.arxiv_id
                for r in self._matching(args.get("from"), args.get("until"), args.get("set"))
            ]
            offset = 0
            if not ids:
                return _oai_error(request, "noRecordsMatch", "No records match")
        page = ids[offset : offset + self.page_size]
        body = "".join(self.records[arxiv_id].xml for arxiv_id in page)
        following = offset + self.page_size
        if following < len(ids):
            token = f"{next(self._token_numbers)}|{following + 1}"
            self._tokens[token] = (ids, following)
            body += (
                f'<resumptionToken cursor="{offset}" completeListSize="{len(ids)}">'
                f"{escape(token)}</resumptionToken>\n"
            )
        elif offset:  # the last of several pages: an empty token says the list is complete
            body += f'<resumptionToken cursor="{offset}" completeListSize="{len(ids)}"/>\n'
        return _oai_answer(request, f"<ListRecords>\n{body}</ListRecords>\n")

    def _matching(
        self, start: str | None, until: str | None, set_spec: str | None
    ) -> Iterable[FakeRecord]:
        for record in self.records.values():
            stamp = record.datestamp.isoformat()
            if start and stamp < start or until and stamp > until:
                continue
            if set_spec and not (
                record.set_spec == set_spec or record.set_spec.startswith(set_spec + ":")
            ):
                continue
            yield record

    def _eprint(self, request: Request) -> Response:
        fault = self._fault()
        if fault:
            return fault
        name = request.path.removeprefix("/e-print/")
        match = re.fullmatch(r"(.+?)(?:v(\d+))?", name)
        assert match is not None
        arxiv_id = match[1]
        versions = sorted(v for (i, v) in self.eprints if i == arxiv_id)
        version = int(match[2]) if match[2] else (versions[-1] if versions else 0)
        if (arxiv_id, version) not in self.eprints:
            return Response(f"No e-print {name}", status=404, content_type="text/plain")
        body, content_type = self.eprints[(arxiv_id, version)]
        extension = {"application/pdf": ".pdf", "application/gzip": ".gz"}.get(content_type, "")
        filename = f"arXiv-{arxiv_id.replace('/', '')}v{version}{extension}"
        return Response(
            body,
            content_type=content_type,
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )


def _record_xml(arxiv_id: str, datestamp: date, set_spec: str, metadata: str | None) -> str:
    status = ' status="deleted"' if metadata is None else ""
    return (
        f"<record>\n<header{status}>\n"
        f" <identifier>oai:arXiv.org:{escape(arxiv_id)}</identifier>\n"
        f" <datestamp>{datestamp.isoformat()}</datestamp>\n"
        f" <setSpec>{escape(set_spec)}</setSpec>\n"
        f"</header>\n{metadata or ''}</record>\n"
    )


def _oai_answer(request: Request, payload: str) -> Response:
    attributes = "".join(f" {key}={quoteattr(value)}" for key, value in request.args.items())
    xml = (
        f"{_OAI_HEAD}<responseDate>{datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ}</responseDate>\n"
        f"<request{attributes}>http://export.arxiv.org/oai2</request>\n{payload}</OAI-PMH>\n"
    )
    return Response(xml, content_type="text/xml; charset=utf-8")


def _oai_error(request: Request, code: str, message: str) -> Response:
    return _oai_answer(request, f'<error code="{code}">{escape(message)}</error>\n')


def _content_type(body: bytes) -> str:
    if body.startswith(b"%PDF"):
        return "application/pdf"
    if body.startswith(b"\x1f\x8b"):
        return "application/gzip"
    return "application/x-eprint-tar"


def gzipped(text: str) -> bytes:
    """Return a one-file e-print: a gzipped .tex, as arXiv serves a single-file submission."""
    return gzip.compress(text.encode(), mtime=0)
