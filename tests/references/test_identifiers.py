import pytest

from curation.references import extract_identifiers, normalize_url, parse_arxiv, repair_reference
from curation.references.identifiers import (
    arxiv_doi,
    arxiv_id_from_doi,
    canonical_doi,
    is_arxiv_doi,
    looks_like_arxiv_id,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("arXiv:2401.11202", ["2401.11202"]),
        ("arXiv:2401.11202v4 [cs.LG]", ["2401.11202"]),
        ("CoRR abs/1410.0759", ["1410.0759"]),
        ("https://arxiv.org/abs/2412.15115", ["2412.15115"]),
        ("https://arxiv.org/pdf/2205.01068.pdf", ["2205.01068"]),
        ("arXiv:hep-th/9711200", ["hep-th/9711200"]),
        ("[hep-th/9802109]", ["hep-th/9802109"]),
        ("arXiv:math.GT/0309136", ["math/0309136"]),
        ("Phys. Lett. B 716, 1 (2012), 1207.7214 [hep-ex]", ["1207.7214"]),
        ("https://doi.org/10.48550/arXiv.2307.08691", ["2307.08691"]),
        ("Proc. 1234.5678 and 3600006.3613165", []),
        # Damaged shapes from PDFs (GROBID citation corpus) and INSPIRE's trailing bare ids.
        ("arXiv .org:astro -ph/0710.3063.", ["0710.3063"]),
        ("arXiv.org:astro-ph /9612213.", ["astro-ph/9612213"]),
        ("JHEP 07 ( 2002)012[ hep -ph/0201195][INSPIRE ].", ["hep-ph/0201195"]),
        ("Phys .Rev .D85 ,054512 ( 2012),1110 .6448", ["1110.6448"]),
        ("O. Bär, Phys. Rev. D92, 074504 (2015), 1503.03649", ["1503.03649"]),
        ("E. Berkowitz et al. (2017), 1704.01114", ["1704.01114"]),
        ("Ben Taskar. 2012. Discriminative models. arxiv:cs.LG/1301.0604", ["1301.0604"]),
        ("arXiv preprint :1708 . 02952 , 2017 .", ["1708.02952"]),
        ("arXiv; 1706.01953v1", ["1706.01953"]),
        ("Rinat Kashaev, arXiv:math/ 0407078,Preprint 2004 .", ["math/0407078"]),
        # A bare number that is not a valid id, or sits mid-reference, is no identifier.
        ("Phys. Rev. D 65, 1999.12345", []),
        ("J. Chem. 12, 1503.0364 (2015)", []),
        ("10.1145/3600006.3613165", []),
    ],
)
def test_arxiv_ids(text: str, expected: list[str]) -> None:
    repaired, _ = repair_reference(text)
    assert [a.id for a in extract_identifiers(repaired).arxiv] == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("arXiv:1913.12345", "month 13 is not 01-12"),
        ("arXiv:1501.1234", "1501 ids have 5-digit numbers, not 4"),
        ("arXiv:1401.12345", "1401 ids have 4-digit numbers, not 5"),
        ("https://doi.org/10.1145/", "DOI has no suffix after the prefix"),
        ("doi:10.1145", "DOI has no suffix after the prefix"),
        ("Title. doi: 10.1145.", "DOI has no suffix after the prefix"),
        ("arXiv:2301.123", "2301 ids have 5-digit numbers, not 3"),
    ],
)
def test_malformed_identifiers_say_why(text: str, reason: str) -> None:
    ids = extract_identifiers(text)
    assert not ids.arxiv and not ids.dois
    assert [m.reason for m in ids.malformed] == [reason]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("doi:10.1145/3434304.", ["10.1145/3434304"]),
        ("https://doi.org/10.1016/S0140-6736(97)11096-0", ["10.1016/s0140-6736(97)11096-0"]),
        ("(doi: 10.1126/science.122.3159.108)", ["10.1126/science.122.3159.108"]),
        ("https://dx.doi.org/10.1109/CGO53902.2022.9741258", ["10.1109/cgo53902.2022.9741258"]),
        ("https://doi.org/10.1145%2F3560815", ["10.1145/3560815"]),
        ("https://doi.org/10.1073/pnas.0507655102;", ["10.1073/pnas.0507655102"]),
        # Spaces a PDF put inside the DOI, and words glued after it.
        ("doi:10. 1103/PhysRevD.10.2445.", ["10.1103/physrevd.10.2445"]),
        ("doi:10 .1088/1367-2630/12/2/025010. URL", ["10.1088/1367-2630/12/2/025010"]),
        ("doi: 10.1103 /PhysRevLett. 113.091601 .", ["10.1103/physrevlett.113.091601"]),
        ("doi :10.1103/PhysRevLett .100.228502.", ["10.1103/physrevlett.100.228502"]),
        ("doi: 10.1093/molbev /msu300.", ["10.1093/molbev/msu300"]),
        ("doi.10.1093/cid/ciy936. PMID: 30383203.", ["10.1093/cid/ciy936"]),
        ("doi :10.1103/PhysRevD.11.395.URL https: //x", ["10.1103/physrevd.11.395"]),
        (
            "(2006)doi :10.1103/PhysRevLett.96.181602,hep -th/0603001.",
            ["10.1103/physrevlett.96.181602"],
        ),
        ("doi:10.1088/0264-9381/33/5/055008[arXiv :1509.00074]", ["10.1088/0264-9381/33/5/055008"]),
        ("doi:10.1126/science.1193063.PMID:20847271.", ["10.1126/science.1193063"]),
        ("doi:10.1039/c9ee00453j(2019).", ["10.1039/c9ee00453j"]),
        ("doi:10.1007/JHEP11(2013)158.", ["10.1007/jhep11(2013)158"]),
        # A list label glued after the DOI's stop; a DOI ending in a parenthesised letter stays.
        ("doi: 10. 5194/npg-21-379-2014.(a) 2012", ["10.5194/npg-21-379-2014"]),
        ("doi:10.1000/abc.(iv)", ["10.1000/abc"]),
        ("doi:10.1000/xyz(b)", ["10.1000/xyz(b)"]),
        (
            "https://doi.org/10.16368/j.issn.1674-8999.2002.01.016.",
            ["10.16368/j.issn.1674-8999.2002.01.016"],
        ),
        (
            "doi:10.14191/atmos.2019.29.5.551(inkoreanwithenglishabstract.",
            ["10.14191/atmos.2019.29.5.551"],
        ),
    ],
)
def test_dois(text: str, expected: list[str]) -> None:
    repaired, _ = repair_reference(text)
    assert [d.value for d in extract_identifiers(repaired).dois] == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/NVIDIA/Megatron-LM/issues/1611", "nvidia/megatron-lm/issues/1611"),
        ("https://github.com/NVIDIA/NeMo/pull/5564.", "nvidia/nemo/pull/5564"),
        ("https://github.com/a/b/pulls/7", "a/b/pull/7"),
        (
            "https://github.com/aws-neuron/transformers-neuronx/commit/0c646b02ad36a82bcc13633523de09eb6ed92072",
            "aws-neuron/transformers-neuronx/commit/0c646b02ad36a82bcc13633523de09eb6ed92072",
        ),
        (
            "https://github.com/google/jax/issues/12345#issuecomment-987654",
            "google/jax/issues/12345",
        ),
    ],
)
def test_github_references(url: str, expected: str) -> None:
    assert [str(g) for g in extract_identifiers(url).github] == [expected]


def test_a_github_repository_is_a_url_not_an_issue() -> None:
    ids = extract_identifiers("https://github.com/google/jax")
    assert not ids.github and ids.urls == ("https://github.com/google/jax",)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            "HTTPS://Example.COM/Path/To/Page?utm_campaign=x&id=3#section-2",
            "https://example.com/Path/To/Page?id=3",
        ),
        ("https://pytorch.org/.", "https://pytorch.org/"),
        (
            "<https://www.anthropic.com/news/claude-3-family>",
            "https://www.anthropic.com/news/claude-3-family",
        ),
        ("www.example.org/a),", "https://www.example.org/a"),
        ("https://en.wikipedia.org/wiki/Foo_(bar)", "https://en.wikipedia.org/wiki/Foo_(bar)"),
    ],
)
def test_normalize_url(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2401.11202v4", "2401.11202v4"),
        ("hep-th/9711200", "hep-th/9711200"),
        ("1913.12345", None),
        ("math.GT/0309136", "math/0309136"),
        ("foo/1234567", None),
    ],
)
def test_parse_arxiv(text: str, expected: str | None) -> None:
    parsed = parse_arxiv(text)
    assert (str(parsed) if parsed else None) == expected


# --- identifiers given as values (Crossref, Retraction Watch, forms, URLs) -----------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("10.1016/j.micpro.2020.103053", "10.1016/j.micpro.2020.103053"),
        ("10.2147/IJN.S97476", "10.2147/ijn.s97476"),
        ("https://doi.org/10.2147/IJN.S97476", "10.2147/ijn.s97476"),
        ("http://dx.doi.org/10.2147/IJN.S97476", "10.2147/ijn.s97476"),
        ("doi:10.2147/IJN.S97476", "10.2147/ijn.s97476"),
        ("DOI: 10.2147/IJN.S97476.", "10.2147/ijn.s97476"),
        ("  10.1155/2021/6907871;  ", "10.1155/2021/6907871"),
        (
            "10.1002/1096-9098(200007)74:3%3C201::AID-JSO8%3E3.0.CO;2-5",
            "10.1002/1096-9098(200007)74:3<201::aid-jso8>3.0.co;2-5",
        ),
        (
            "10.1002/(SICI)1097-0258(19980430)17:8<857::AID-SIM777>3.0.CO,2-E",
            "10.1002/(sici)1097-0258(19980430)17:8<857::aid-sim777>3.0.co,2-e",
        ),
        ("(see 10.1016/s0140-6736(20)30183-5)", None),
        ("10.1016/s0140-6736(20)30183-5)", "10.1016/s0140-6736(20)30183-5"),
        ("10.48550/arXiv.2412.14374", "10.48550/arxiv.2412.14374"),
        ("unavailable", None),
        ("", None),
        (None, None),
        ("10.1000", None),
        ("10.1000/has space", None),
    ],
)
def test_canonical_doi(raw: str | None, expected: str | None) -> None:
    assert canonical_doi(raw) == expected


def test_canonical_doi_upper_and_lower_case_compare_equal() -> None:
    assert canonical_doi("10.1016/J.MICPRO.2020.103053") == canonical_doi(
        "10.1016/j.micpro.2020.103053"
    )


@pytest.mark.parametrize(
    ("doi", "arxiv_id"),
    [
        ("10.48550/arxiv.2412.14374", "2412.14374"),
        ("10.48550/arXiv.hep-th/9711200", "hep-th/9711200"),
        ("10.1023/a:1026654312961", None),
        (None, None),
    ],
)
def test_arxiv_doi(doi: str | None, arxiv_id: str | None) -> None:
    assert is_arxiv_doi(doi) is (arxiv_id is not None)
    assert arxiv_id_from_doi(doi) == arxiv_id


@pytest.mark.parametrize(
    "token",
    ["10.1103/PhysRevD.65.094516]", "10.1103/PhysRevD.65.094516.", "10.1103/PhysRevD.65.094516),"],
)
def test_a_doi_in_text_and_as_a_value_end_alike(token: str) -> None:
    """One trailing-punctuation rule: an unmatched ']' or ')' or a final stop is never the DOI's."""
    (found,) = extract_identifiers(f"J. Doe, Phys. Rev. D, {token} more").dois
    assert found.value == canonical_doi(token) == "10.1103/physrevd.65.094516"


def test_a_bracket_the_doi_opens_stays() -> None:
    assert canonical_doi("10.1000/abc[1]") == "10.1000/abc[1]"


@pytest.mark.parametrize(
    ("value", "shaped"),
    [
        ("2412.14374", True),
        ("2412.14374v2", True),
        ("hep-th/9711200", True),
        ("math.AG/0309136", True),
        ("2413.14374", False),  # month 13
        ("2412.143", False),
        ("hep-th/971120", False),
        ("../../etc/passwd", False),
    ],
)
def test_looks_like_arxiv_id(value: str, shaped: bool) -> None:
    assert looks_like_arxiv_id(value) is shaped


def test_arxiv_doi_of_an_id_is_what_arxiv_id_from_doi_reads_back() -> None:
    assert arxiv_doi("2412.14374") == "10.48550/arxiv.2412.14374"
    assert arxiv_id_from_doi(arxiv_doi("hep-th/9711200")) == "hep-th/9711200"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://arxiv.org/abs/2502.00007v2", "2502.00007"),  # issue 41 item 4: Add papers
        ("http://export.arxiv.org/pdf/2502.00007v1.pdf", "2502.00007"),
        ("https://arxiv.org/abs/hep-th/9901001", "hep-th/9901001"),
        ("arXiv:2401.00001v2", "2401.00001"),
        ("https://example.org/abs/2502.00007", None),
        ("not-an-id", None),
    ],
)
def test_a_paper_id_may_be_written_as_its_arxiv_url(given: str, expected: str | None) -> None:
    from curation.references.identifiers import clean_arxiv_id

    assert clean_arxiv_id(given) == expected
