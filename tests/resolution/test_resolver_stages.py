"""Pieces of the resolver package on their own, with no catalogue: which identifiers a batch
asks for, which records a reference's identifiers name, identifiers that disagree, and SPEC §2's
steps 1 and 4 for a reference nothing linked."""

from __future__ import annotations

from curation.catalogue.records import Candidate
from curation.resolution.resolver import Lookups, ReferenceInput, Verdict
from curation.resolution.resolver.by_identifier import by_identifiers, identifier_records
from curation.resolution.resolver.decide import _unsettled
from curation.resolution.resolver.lookups import _identifiers_of
from curation.states import ResolutionStatus, ResolverSource

PAPER = Candidate(ResolverSource.LOCAL_ARXIV, "A paper", "a paper", "apaper", (2020,), "smith", "Smith",
                  arxiv_id="2001.00001", doi="10.1/pub.1")  # fmt: skip
PUBLISHED = Candidate(ResolverSource.DOI, "A paper", "a paper", "apaper", (2020,), "smith", "Smith",
                      doi="10.1/pub.1")  # fmt: skip
OTHER = Candidate(ResolverSource.DOI, "Another", "another", "another", (2021,), "lee", "Lee", doi="10.1/other")


def _item(**fields: object) -> ReferenceInput:
    return ReferenceInput(title=None, **fields)  # type: ignore[arg-type]


def test_a_batch_asks_for_arxiv_ids_inside_arxiv_dois_and_the_other_dois() -> None:
    items = [
        _item(arxiv_ids=["2001.00001"], dois=["10.48550/arxiv.2002.00002", "10.1/pub.1"]),
        _item(pith_arxiv_id="2003.00003"),
    ]
    assert _identifiers_of(items) == ({"2001.00001", "2002.00002", "2003.00003"}, {"10.1/pub.1"})


def test_identifier_records_strongest_first_and_the_unknown_noted() -> None:
    lookups = Lookups(papers={"2001.00001": PAPER}, works={"10.1/pub.1": PUBLISHED})
    evidence: dict = {"identifiers": {}}
    item = _item(arxiv_ids=["2001.00001"], dois=["10.1/pub.1", "10.1/unknown"])
    found = identifier_records(item, lookups, evidence)
    assert found == [(PAPER, "arXiv:2001.00001"), (PUBLISHED, "doi:10.1/pub.1")]
    assert evidence["identifiers"]["unknown"] == ["doi:10.1/unknown"]


def test_identifiers_naming_different_works_are_a_mismatch() -> None:
    lookups = Lookups(papers={"2001.00001": PAPER}, works={"10.1/other": OTHER})
    evidence: dict = {"identifiers": {}}
    item = _item(arxiv_ids=["2001.00001"], dois=["10.1/other"])
    verdict = by_identifiers(item, identifier_records(item, lookups, evidence), lookups, evidence, None)
    assert verdict.status == ResolutionStatus.METADATA_MISMATCH
    assert evidence["identifiers_disagree"] == ["arXiv:2001.00001", "doi:10.1/other"]


def test_a_paper_and_its_doi_are_one_work() -> None:
    lookups = Lookups(papers={"2001.00001": PAPER}, works={"10.1/pub.1": PUBLISHED})
    evidence: dict = {"identifiers": {}}
    item = _item(arxiv_ids=["2001.00001"], dois=["10.1/pub.1"])
    verdict = by_identifiers(item, identifier_records(item, lookups, evidence), lookups, evidence, None)
    assert verdict.status == ResolutionStatus.VERIFIED_EXACT and verdict.linked == PAPER


def _unresolved() -> Verdict:
    return Verdict(ResolutionStatus.UNRESOLVED, ResolverSource.RAW_FALLBACK, {"decision": "no candidate"})


def test_no_title_and_no_identifier_is_parse_uncertain() -> None:
    verdict = _unresolved()
    _unsettled(_item(problem="too_short"), verdict, verdict.evidence)
    assert verdict.status == ResolutionStatus.PARSE_UNCERTAIN
    assert verdict.evidence["decision"] == "no usable title (too_short) and no identifier"


def test_an_invalid_identifier_the_title_did_not_make_up_for_is_malformed() -> None:
    verdict = _unresolved()
    item = ReferenceInput(title="A title", malformed=[{"scheme": "arxiv", "raw": "x", "reason": "y"}])
    _unsettled(item, verdict, verdict.evidence)
    assert verdict.status == ResolutionStatus.MALFORMED_IDENTIFIER
    assert verdict.evidence["decision"].startswith("invalid identifier and no verified title: ")


def test_an_unknown_valid_identifier_stays_unresolved() -> None:
    verdict = _unresolved()
    _unsettled(_item(dois=["10.1/unknown"]), verdict, verdict.evidence)
    assert verdict.status == ResolutionStatus.UNRESOLVED


def test_a_doi_record_whose_arxiv_paper_is_known_is_that_papers_work() -> None:
    # The paper's own row carries no DOI: the version sets say which paper the DOI is.
    paper = Candidate(ResolverSource.LOCAL_ARXIV, "A paper", "a paper", "apaper", (2020,), "smith", "Smith",
                      arxiv_id="2001.00001")  # fmt: skip
    lookups = Lookups(papers={"2001.00001": paper}, works={"10.1/pub.1": PUBLISHED},
                      papers_by_doi={"10.1/pub.1": paper})  # fmt: skip
    evidence: dict = {"identifiers": {}}
    item = _item(arxiv_ids=["2001.00001"], dois=["10.1/pub.1"])
    verdict = by_identifiers(item, identifier_records(item, lookups, evidence), lookups, evidence, None)
    assert verdict.status == ResolutionStatus.VERIFIED_EXACT and verdict.linked == paper
