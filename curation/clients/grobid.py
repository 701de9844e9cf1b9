"""Read a PDF-only paper's references with GROBID's processReferences service.

Written on httpx (already a dependency) because neither GROBID client on PyPI fits a worker job
that must send one PDF and tell "busy, retry later" from "down" from "failed":

- grobid-client-python 0.2.1 (maintained) takes a PDF's bytes and returns the text without
  writing files, but on a 503 it sleeps and re-sends by recursion with no bound (tried against
  a fake GROBID that always answers 503: 488 re-sends, then the RecursionError comes back as
  status 500; with its default 5 s sleep, a worker blocked 40 minutes); it returns a refused
  connection as status 400 "Failed to open file" (requests' ConnectionError is an IOError),
  so "down" and "bad input" look alike; it installs its own console handler on a logger that
  does not propagate (bypassing Django's logging); and it pulls in dateparser (regex, pytz,
  tzlocal) and beautifulsoup4 for one POST.
- grobid-client 0.8.8 (OpenAPI-generated, last release 2024) has no processReferences call
  (processFulltextDocument only) and pins httpx==0.23.0, lxml<5 and attrs<22, against citerec's
  httpx 0.28.1 and lxml 6.1.3. Both packages also install the same top-level `grobid_client`.
"""

from __future__ import annotations

import httpx

from curation.references.formats.base import ReferenceInputError
from curation.references.formats.tei import read_tei
from curation.references.listed import ListedReference

# Raw citations let the import keep the string as printed; consolidation would call Crossref
# from GROBID, which citerec's own resolver does (rate-limited, cached).
PARAMS = {"consolidateCitations": "0", "includeRawCitations": "1"}
_CONNECT_TIMEOUT = 10.0  # a GROBID that is down should fail a job fast, not after `timeout`
_GATEWAY_DOWN = frozenset({502, 504})  # a proxy in front of GROBID that cannot reach it


class GrobidError(Exception):
    """GROBID could not read this PDF, or answered with something that is not TEI."""


class GrobidBusy(GrobidError):
    """GROBID answered 503: all its workers are busy; send the PDF again later."""


class GrobidUnavailable(GrobidError):
    """GROBID could not be reached, or did not answer in time."""


def process_references(pdf: bytes, *, url: str, timeout: float = 120.0) -> str:
    """Send one PDF to GROBID and return its TEI answer ('' when GROBID found no references)."""
    endpoint = f"{url.rstrip('/')}/api/processReferences"
    try:
        response = httpx.post(
            endpoint,
            files={"input": ("paper.pdf", pdf, "application/pdf")},
            data=PARAMS,
            headers={"Accept": "application/xml"},
            timeout=httpx.Timeout(timeout, connect=min(timeout, _CONNECT_TIMEOUT)),
        )
    except httpx.TimeoutException:
        raise GrobidUnavailable(
            f"GROBID at {endpoint} did not answer within {timeout:g} s"
        ) from None
    except httpx.TransportError as exc:
        raise GrobidUnavailable(f"GROBID at {endpoint} cannot be reached: {exc}") from None
    status = response.status_code
    if status == 200:
        return response.text
    if status == 204:  # GROBID's "done, but nothing could be extracted"
        return ""
    what = f"GROBID at {endpoint} answered {status}: {response.text[:200].strip()}"
    if status == 503:
        raise GrobidBusy(what)
    if status in _GATEWAY_DOWN:
        raise GrobidUnavailable(what)
    raise GrobidError(what)


def references_from_tei(tei: str, *, name: str) -> list[ListedReference]:
    """Return the references in GROBID's TEI answer, each as its raw_reference text."""
    if not tei.strip():
        return []
    try:
        # read_tei takes the raw_reference note as the text when GROBID sent one (we ask it
        # to), and composes one from the fields only when it did not.
        return list(read_tei(tei))
    except ReferenceInputError as exc:
        raise GrobidError(f"{name}: GROBID's answer is not readable TEI: {exc}") from None


def listed_references(tei: str, *, name: str) -> list[ListedReference]:
    """Return the references of GROBID's TEI answer that have text, in order."""
    return [ref for ref in references_from_tei(tei, name=name) if ref.raw]
