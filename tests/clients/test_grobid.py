"""GROBID's processReferences against a fake GROBID on pytest-httpserver."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from curation.clients.grobid import (
    GrobidBusy,
    GrobidError,
    GrobidUnavailable,
    listed_references,
    process_references,
    references_from_tei,
)

TEI = (Path(__file__).parents[1] / "ingestion" / "fixtures" / "grobid_references.tei.xml").read_text()
PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
ENDPOINT = "/api/processReferences"


def _base(server: HTTPServer) -> str:
    return server.url_for("/").rstrip("/")


def test_process_references_returns_the_tei_and_sends_one_pdf(httpserver: HTTPServer) -> None:
    received: dict[str, object] = {}

    def grobid(request: Request) -> Response:
        upload = request.files["input"]
        received.update(
            fields=sorted(request.files), form=dict(request.form), pdf=upload.read(),
            content_type=upload.content_type, accept=request.headers.get("Accept"),
        )  # fmt: skip
        return Response(TEI, content_type="application/xml")

    httpserver.expect_oneshot_request(ENDPOINT, method="POST").respond_with_handler(grobid)

    assert process_references(PDF, url=_base(httpserver) + "/") == TEI
    assert received == {
        "fields": ["input"],
        "form": {"consolidateCitations": "0", "includeRawCitations": "1"},
        "pdf": PDF,
        "content_type": "application/pdf",
        "accept": "application/xml",
    }


def test_references_from_tei_reads_titles_dois_and_raw_strings() -> None:
    refs = references_from_tei(TEI, name="arXiv:1708.00957")

    assert len(refs) == 12
    assert [r.index for r in refs] == list(range(1, 13))
    assert refs[0].fields["title"] == "Black hole explosions"
    assert refs[0].fields["doi"] == "10.1038/248030a0"
    assert refs[0].label == "b0"
    assert refs[2].fields["arxiv"] == "hep-th/9711200"
    assert sum("doi" in r.fields for r in refs) == 4
    assert refs[11].fields["title"].startswith("Maximin Surfaces")
    # The string as printed in the PDF (note type="raw_reference"), not one composed from fields.
    assert refs[1].raw == (
        'J. D. Bekenstein, "Generalized second law of thermodynamics in black hole physics," '
        "Phys.Rev .D 9 ,3292 ( 1974).doi :10.1103/PhysRevD.9.3292"
    )


def test_listed_references_are_the_raw_texts_in_order() -> None:
    raws = [ref.raw for ref in listed_references(TEI, name="x")]

    assert len(raws) == 12
    assert raws[6] == (
        'N. Engelhardt and R. Bousso, "A New Area Law in General Relativity," '
        "https://arxiv.org/abs/1504.07627"
    )


def test_no_content_means_no_references(httpserver: HTTPServer) -> None:
    httpserver.expect_oneshot_request(ENDPOINT, method="POST").respond_with_data("", status=204)

    tei = process_references(PDF, url=_base(httpserver))

    assert tei == ""
    assert references_from_tei(tei, name="x") == []


def test_unreadable_tei_is_a_grobid_error_naming_the_paper() -> None:
    with pytest.raises(GrobidError, match=r"arXiv:2401.00001: GROBID's answer is not readable"):
        references_from_tei("<TEI><listBibl>", name="arXiv:2401.00001")


def test_503_is_busy(httpserver: HTTPServer) -> None:
    httpserver.expect_oneshot_request(ENDPOINT, method="POST").respond_with_data(
        "all threads busy", status=503
    )

    with pytest.raises(GrobidBusy, match="answered 503: all threads busy"):
        process_references(PDF, url=_base(httpserver))
    assert len(httpserver.log) == 1  # told once, not re-sent here: the job retries later


@pytest.mark.parametrize(
    ("status", "error"), [(500, GrobidError), (400, GrobidError), (502, GrobidUnavailable)]
)
def test_other_answers(httpserver: HTTPServer, status: int, error: type[GrobidError]) -> None:
    httpserver.expect_oneshot_request(ENDPOINT, method="POST").respond_with_data(
        "[NO_BLOCKS] PDF parsing failed", status=status
    )

    with pytest.raises(error, match=f"answered {status}") as raised:
        process_references(PDF, url=_base(httpserver))
    assert not isinstance(raised.value, GrobidBusy)


def test_connection_refused_is_unavailable() -> None:
    with socket.socket() as sock:  # a port nobody listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]

    with pytest.raises(GrobidUnavailable, match="cannot be reached"):
        process_references(PDF, url=f"http://127.0.0.1:{port}")


def test_slow_answer_is_unavailable(httpserver: HTTPServer) -> None:
    def slow(request: Request) -> Response:
        time.sleep(0.5)
        return Response(TEI)

    httpserver.expect_oneshot_request(ENDPOINT, method="POST").respond_with_handler(slow)

    with pytest.raises(GrobidUnavailable, match="did not answer within 0.1 s"):
        process_references(PDF, url=_base(httpserver), timeout=0.1)
