import pytest

from curation.references import ReferenceInputError, read_references

TEI = """<?xml version="1.0" encoding="UTF-8"?>
<TEI xmlns="http://www.tei-c.org/ns/1.0"><text><back><div><listBibl>
<biblStruct xml:id="b0"><analytic><title level="a">Attention is all you need</title>
<author><persName><surname>Vaswani</surname></persName></author></analytic>
<monogr><title level="m">NeurIPS</title><imprint><date when="2017"/>
<biblScope unit="page" from="5998" to="6008"/></imprint></monogr>
<idno type="arXiv">arXiv:1706.03762</idno></biblStruct>
<biblStruct xml:id="b1"><monogr><title level="m">Deep Learning</title><imprint><date when="2016"/></imprint></monogr>
<note type="raw_reference">Goodfellow, I. (2016). Deep Learning. MIT Press.</note></biblStruct>
</listBibl></div></back></text></TEI>"""

JATS = """<article xmlns:xlink="http://www.w3.org/1999/xlink"><back><ref-list>
<ref id="r1"><label>1</label><mixed-citation><person-group><name><surname>Kahneman</surname>
<given-names>D</given-names></name></person-group>. <article-title>Prospect theory</article-title>.
<source>Econometrica</source> <year>1979</year>;<volume>47</volume>:<fpage>263</fpage>.
<pub-id pub-id-type="doi">10.2307/1914185</pub-id></mixed-citation></ref>
<ref id="r2"><label>[2]</label><element-citation><person-group><name><surname>Knuth</surname></name>
</person-group><source>The Art of Computer Programming</source><year>1997</year></element-citation></ref>
</ref-list></back></article>"""


def test_tei_bibl_structs() -> None:
    refs = list(read_references(TEI))
    assert [r.label for r in refs] == ["b0", "b1"]
    assert refs[0].fields["title"] == "Attention is all you need"
    assert refs[0].fields["arxiv"] == "1706.03762"
    assert refs[0].fields["pages"] == "5998–6008"
    assert refs[1].raw == "Goodfellow, I. (2016). Deep Learning. MIT Press."


def test_jats_ref_list() -> None:
    refs = list(read_references(JATS.encode()))
    assert [(r.index, r.label) for r in refs] == [(1, "1"), (2, "2")]
    assert refs[0].fields["doi"] == "10.2307/1914185"
    assert refs[0].raw.startswith("Kahneman D. Prospect theory. Econometrica 1979")
    assert refs[1].fields["title"] == "The Art of Computer Programming"


def test_external_entities_are_never_resolved() -> None:
    xml = (
        "<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]><TEI xmlns='http://www.tei-c.org/ns/1.0'>"
        "<listBibl><biblStruct><monogr><title>&e;</title></monogr></biblStruct></listBibl></TEI>"
    )
    refs = list(read_references(xml, "tei"))
    assert "root:" not in refs[0].raw


def test_broken_xml_names_the_line() -> None:
    with pytest.raises(ReferenceInputError, match=r"line 2: not well-formed XML"):
        list(read_references("<TEI>\n<listBibl><biblStruct></listBibl>", "tei"))
