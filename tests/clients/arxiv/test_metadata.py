"""arXivRaw records (OAI-PMH) parsed into ArxivMetadata / DeletedRecord."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from lxml import etree

from curation.clients.arxiv import ArxivBadRecord, ArxivMetadata, ArxivVersion, DeletedRecord
from curation.clients.arxiv.metadata import parse_record

# The shape of a real arXiv GetRecord answer for 0704.0001 (arXivRaw): line breaks inside the
# title, a LaTeX accent in the authors, two versions, every optional field present.
REAL_RECORD = b"""<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">
<responseDate>2024-06-11T09:12:45Z</responseDate>
<request verb="GetRecord" identifier="oai:arXiv.org:0704.0001" metadataPrefix="arXivRaw">http://export.arxiv.org/oai2</request>
<GetRecord>
<record>
<header>
 <identifier>oai:arXiv.org:0704.0001</identifier>
 <datestamp>2008-11-13</datestamp>
 <setSpec>physics:hep-ph</setSpec>
</header>
<metadata>
 <arXivRaw xmlns="http://arxiv.org/OAI/arXivRaw/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://arxiv.org/OAI/arXivRaw/ http://arxiv.org/OAI/arXivRaw.xsd">
 <id>0704.0001</id><submitter>Pavel Nadolsky</submitter><version version="v1"><date>Mon, 2 Apr 2007 19:18:42 GMT</date><size>424kb</size><source_type>D</source_type></version><version version="v2"><date>Tue, 24 Jul 2007 20:10:27 GMT</date><size>432kb</size><source_type>D</source_type></version><title>Calculation of prompt diphoton production cross sections at Tevatron and
  LHC energies</title><authors>C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan</authors><categories>hep-ph</categories><comments>37 pages, 15 figures; published version</comments><report-no>ANL-HEP-PR-07-12</report-no><journal-ref>Phys.Rev.D76:013009,2007</journal-ref><doi>10.1103/PhysRevD.76.013009</doi><license>http://arxiv.org/licenses/nonexclusive-distrib/1.0/</license><abstract>  A fully differential calculation in perturbative quantum chromodynamics is
presented for the production of massive photon pairs at hadron colliders. All
next-to-leading order perturbative contributions from quark-antiquark,
gluon-(anti)quark, and gluon-gluon subprocesses are included.
</abstract></arXivRaw>
</metadata>
</record>
</GetRecord>
</OAI-PMH>
"""
OAI = "{http://www.openarchives.org/OAI/2.0/}"


def record_of(xml: bytes) -> object:
    return etree.fromstring(xml).find(f".//{OAI}record")


def test_a_real_record_is_parsed_with_its_versions_in_utc() -> None:
    paper = parse_record(record_of(REAL_RECORD))
    assert paper == ArxivMetadata(
        arxiv_id="0704.0001",
        datestamp=date(2008, 11, 13),
        title="Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
        authors="C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan",
        categories=["hep-ph"],
        journal_ref="Phys.Rev.D76:013009,2007",
        doi="10.1103/PhysRevD.76.013009",
        comments="37 pages, 15 figures; published version",
        license="http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
        versions=(
            ArxivVersion(1, datetime(2007, 4, 2, 19, 18, 42, tzinfo=UTC), "424kb"),
            ArxivVersion(2, datetime(2007, 7, 24, 20, 10, 27, tzinfo=UTC), "432kb"),
        ),
        abstract=(
            "A fully differential calculation in perturbative quantum chromodynamics is presented "
            "for the production of massive photon pairs at hadron colliders. All next-to-leading "
            "order perturbative contributions from quark-antiquark, gluon-(anti)quark, and "
            "gluon-gluon subprocesses are included."
        ),
    )
    assert paper.latest_version == 2  # type: ignore[union-attr]


def test_optional_fields_missing_are_none_and_categories_split() -> None:
    xml = REAL_RECORD
    for tag in (b"comments", b"report-no", b"journal-ref", b"doi", b"license"):
        start = xml.index(b"<" + tag + b">")
        xml = xml[:start] + xml[xml.index(b"</" + tag + b">", start) + len(tag) + 3 :]
    xml = xml.replace(
        b"<categories>hep-ph</categories>", b"<categories>cs.LG stat.ML\n math.OC</categories>"
    )
    paper = parse_record(record_of(xml))
    assert isinstance(paper, ArxivMetadata)
    assert (paper.comments, paper.journal_ref, paper.doi, paper.license) == (None,) * 4
    assert paper.categories == ["cs.LG", "stat.ML", "math.OC"]


def test_versions_come_in_version_order_whatever_the_xml_order() -> None:
    v1 = b'<version version="v1"><date>Mon, 2 Apr 2007 19:18:42 GMT</date><size>424kb</size><source_type>D</source_type></version>'
    v2 = b'<version version="v2"><date>Tue, 24 Jul 2007 20:10:27 GMT</date><size>432kb</size><source_type>D</source_type></version>'
    paper = parse_record(record_of(REAL_RECORD.replace(v1 + v2, v2 + v1)))
    assert [v.version for v in paper.versions] == [1, 2]  # type: ignore[union-attr]


def test_an_old_style_id_is_kept_whole() -> None:
    xml = REAL_RECORD.replace(b"0704.0001", b"hep-th/9901001")
    paper = parse_record(record_of(xml))
    assert paper.arxiv_id == "hep-th/9901001"


def test_a_deleted_header_is_a_deleted_record() -> None:
    xml = b"""<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords><record>
    <header status="deleted"><identifier>oai:arXiv.org:cond-mat/0102536</identifier>
    <datestamp>2024-01-03</datestamp><setSpec>physics:cond-mat</setSpec></header>
    </record></ListRecords></OAI-PMH>"""
    assert parse_record(record_of(xml)) == DeletedRecord("cond-mat/0102536", date(2024, 1, 3))


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (b"<id>0704.0001</id>", b"<id>not-an-id</id>", "is not an arXiv id"),
        (b"<datestamp>2008-11-13</datestamp>", b"<datestamp>yesterday</datestamp>", "datestamp"),
        (b"Mon, 2 Apr 2007 19:18:42 GMT", b"early April", "date"),
        (b'version="v1"', b'version="first"', "is not v<N>"),
    ],
)
def test_a_record_missing_what_every_record_has_is_refused(
    old: bytes, new: bytes, message: str
) -> None:
    with pytest.raises(ArxivBadRecord, match=message):
        parse_record(record_of(REAL_RECORD.replace(old, new)))
