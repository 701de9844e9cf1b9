"""SPEC §2 step 2: a valid identifier that resolves to a known record decides, unless the
reference contradicts it; identifiers naming different works are a metadata mismatch."""

from __future__ import annotations

from typing import Any

from curation.catalogue.records import Candidate
from curation.references.identifiers import ARXIV_DOI_PREFIX
from curation.resolution.scoring import Query, Scored, score, title_agrees_with_identifier
from curation.resolution.validate import RawText, validate
from curation.states import ResolutionStatus

from .inputs import ReferenceInput
from .lookups import Lookups
from .verdict import Verdict

_S = ResolutionStatus


def by_identifiers(
    item: ReferenceInput,
    identifiers: list[tuple[Candidate, str]],
    lookups: Lookups,
    evidence: dict[str, Any],
    text: RawText | None,
) -> Verdict:
    """Return the verdict of a reference whose identifiers resolve (`identifier_records`)."""
    works = _distinct_works(identifiers, lookups)
    if len(works) > 1:
        return _identifiers_disagree(works, evidence)
    record, via = identifiers[0]
    return by_identifier(item.query(), record, via, lookups, evidence, item, text)


def _distinct_works(
    identifiers: list[tuple[Candidate, str]], lookups: Lookups
) -> dict[str, tuple[Candidate, str]]:
    """Return the works the identifiers name, one entry per work (a paper and its DOI are one)."""
    works: dict[str, tuple[Candidate, str]] = {}
    for record, via in identifiers:
        key = record.work_key
        if record.doi and not record.arxiv_id:
            paper = lookups.papers_by_doi.get(record.doi)
            key = paper.work_key if paper else key
        if not record.arxiv_id and record.doi:
            for other, _ in identifiers:
                if other.arxiv_id and other.doi == record.doi:
                    key = other.work_key
        works.setdefault(key, (record, via))
    return works


def _identifiers_disagree(
    works: dict[str, tuple[Candidate, str]], evidence: dict[str, Any]
) -> Verdict:
    """Return metadata_mismatch: the reference's identifiers name different works."""
    evidence["step"] = "identifier"
    evidence["identifiers_disagree"] = [via for _, via in works.values()]
    evidence["candidates"] = [record.describe() for record, _ in works.values()]
    evidence["decision"] = "the identifiers name different works: " + ", ".join(
        via for _, via in works.values()
    )
    first = next(iter(works.values()))[0]
    return Verdict(_S.METADATA_MISMATCH, first.source, evidence)


def identifier_records(
    item: ReferenceInput, lookups: Lookups, evidence: dict[str, Any]
) -> list[tuple[Candidate, str]]:
    """Return the records the reference's identifiers resolve to, strongest first."""
    wanted = [(lookups.papers.get(a), f"arXiv:{a}") for a in item.arxiv_ids]
    for doi in item.dois:
        if doi.startswith(ARXIV_DOI_PREFIX):
            wanted.append((lookups.papers.get(doi[len(ARXIV_DOI_PREFIX) :]), f"doi:{doi}"))
        else:
            wanted.append((lookups.works.get(doi), f"doi:{doi}"))
    if item.pith_arxiv_id:
        wanted.append(
            (lookups.papers.get(item.pith_arxiv_id), f"pith_arxiv_id:{item.pith_arxiv_id}")
        )
    # An unknown identifier is kept in the evidence and re-tried when the catalogues grow.
    evidence["identifiers"]["unknown"] = [via for record, via in wanted if record is None]
    return [(record, via) for record, via in wanted if record is not None]


def by_identifier(
    query: Query,
    record: Candidate,
    via: str,
    lookups: Lookups,
    evidence: dict[str, Any],
    item: ReferenceInput | None = None,
    text: RawText | None = None,
) -> Verdict:
    """Decide SPEC §2 step 2: the identifier resolves; the title and year must not contradict."""
    scored = score(query, record)
    evidence["step"] = "identifier"
    evidence["identifier_resolved"] = via
    title_ok, checks = _checks(query, record, scored, evidence, item, text)
    paper_of_doi = lookups.papers_by_doi.get(record.doi or "") if record.doi else None
    cited_arxiv = record.arxiv_id or (paper_of_doi.arxiv_id if paper_of_doi else None)
    if title_ok and "contradicts" not in checks.values():
        evidence["decision"] = f"{via} resolves and the reference does not contradict it"
        return Verdict(
            _S.VERIFIED_EXACT, record.source, evidence, record, cited_arxiv, scored.score
        )
    why = [] if title_ok else ["the title names another work"]
    why += [f"{name} contradicts" for name, value in checks.items() if value == "contradicts"]
    evidence["decision"] = f"{via} resolves but " + ", ".join(why)
    return Verdict(_S.METADATA_MISMATCH, record.source, evidence, None, None, scored.score)


def _checks(
    query: Query,
    record: Candidate,
    scored: Scored,
    evidence: dict[str, Any],
    item: ReferenceInput | None,
    text: RawText | None,
) -> tuple[bool, dict[str, str]]:
    """Return whether the title agrees with the record, and the year and author checks.

    From the parse when it agrees with the record; else from the whole string, which the parse
    may have misread (the candidate's description in the evidence says which was checked).
    """
    title_ok = query.title is None or title_agrees_with_identifier(query, record)
    checks = {"year": scored.year, "author": scored.author}
    if text is None and item is not None and item.raw:
        if title_ok and "contradicts" not in checks.values():
            text = None  # the parse agrees with the record: the whole string cannot contradict
        else:
            text = RawText(item.raw)
    if text is None or item is None:
        evidence["candidates"] = [scored.describe()]
        return title_ok, checks
    # The whole string, not the parse: "Yang F, Lim GP" names Yang even if parsed as "F".
    check = validate(text, record, names_given=item.names_given, parsed_title=query.title_norm)
    evidence["candidates"] = [check.describe()]
    author = "contradicts" if check.author_contradicts and not check.title_found else "agrees"
    return title_ok or check.title_found, {"year": check.year, "author": author}
