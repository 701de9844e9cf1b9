"""SPEC §2 in its order for each reference of a batch, and the batch around it: lookups once,
a second search by the whole string for what the first did not settle, then the arXiv paper of
each verified link."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from curation.references import ParsedReference, parse_reference
from curation.resolution.validate import RawText
from curation.states import ResolutionStatus, ResolverSource

from .by_identifier import by_identifiers, identifier_records
from .by_string import by_string
from .by_title import by_title, by_title_segments
from .inputs import ReferenceInput
from .lookups import Lookups
from .verdict import RESOLVER_VERSION, Verdict

_S = ResolutionStatus


def resolve_raw(raw: str) -> tuple[ParsedReference, Verdict]:
    """Parse a raw reference and resolve it."""
    parsed = parse_reference(raw)
    item = ReferenceInput.from_parse(parsed)
    return parsed, resolve_inputs([item])[0]


@dataclass
class Resolved:
    """A batch's verdicts, and the Crossref works fetched on the way for its caller to keep."""

    verdicts: list[Verdict]
    fetched: list[dict[str, Any]]


def resolve_batch(inputs: Sequence[ReferenceInput]) -> Resolved:
    """Resolve a batch of references with one identifier lookup for all of them."""
    lookups = Lookups.for_inputs(inputs)
    verdicts = [resolve_one(item, lookups, i) for i, item in enumerate(inputs)]
    # References the first searches did not settle: search by the whole string, all at once.
    retry = [
        i for i, v in enumerate(verdicts) if v.evidence.get("step") == "string" and not v.verified
    ]
    if retry:
        lookups.search_whole_strings(retry)
        for i in retry:
            verdicts[i] = resolve_one(inputs[i], lookups, i, whole_string=True)
    _versions_decided(verdicts, lookups)
    return Resolved(verdicts, list(lookups.fetched.values()))


def _versions_decided(verdicts: Sequence[Verdict], lookups: Lookups) -> None:
    """Decide the arXiv paper of each verified DOI record and note each verified link's
    version set (arXiv id and published DOI, and how they were found), for the batch at once."""
    linked = [v.linked for v in verdicts if v.verified and v.linked is not None]
    if not linked:
        return
    lookups.versions.know(linked)
    lookups.versions.ask_dois(
        c.doi for c in linked if c.source == ResolverSource.DOI and c.doi and not c.arxiv_id
    )
    lookups.versions.ask_papers(c.arxiv_id for c in linked if c.arxiv_id)
    for verdict in verdicts:
        if verdict.verified and verdict.linked is not None:
            verdict.cited_paper_arxiv_id = lookups.versions.decide(verdict.linked, verdict.evidence)


def resolve_inputs(inputs: Sequence[ReferenceInput]) -> list[Verdict]:
    """Return the verdicts of a batch of references (what Crossref answered is not kept)."""
    return resolve_batch(inputs).verdicts


def _evidence(item: ReferenceInput, lookups: Lookups) -> dict[str, Any]:
    return {
        "resolver_version": RESOLVER_VERSION,
        "input": item.describe(),
        "identifiers": {
            "arxiv": list(item.arxiv_ids),
            "doi": list(item.dois),
            "pith_arxiv_id": item.pith_arxiv_id,
            "malformed": list(item.malformed),
            "unknown": [],
        },
        "repairs": list(item.repairs),
        "crossref": {
            d: lookups.crossref_notes[d] for d in item.dois if d in lookups.crossref_notes
        },
        "candidates": [],
    }


def resolve_one(
    item: ReferenceInput, lookups: Lookups, index: int | None = None, whole_string: bool = False
) -> Verdict:
    """Return the verdict for one reference, deciding in SPEC §2's order."""
    evidence = _evidence(item, lookups)
    identifiers = identifier_records(item, lookups, evidence)
    text = lookups.texts[index] if index is not None and lookups.texts else None
    # 2. A valid identifier that resolves to a known record (two naming different works: say so).
    if identifiers:
        return by_identifiers(item, identifiers, lookups, evidence, text)
    verdict = _by_search(item, lookups, evidence, index, text, whole_string)
    if verdict.verified or verdict.status == _S.METADATA_MISMATCH:
        return verdict
    return _unsettled(item, verdict, evidence)


def _by_search(
    item: ReferenceInput,
    lookups: Lookups,
    evidence: dict[str, Any],
    index: int | None,
    text: RawText | None,
    whole_string: bool,
) -> Verdict:
    """Return the verdict of the catalogue's searches: by the whole string, else by title."""
    if text is None and item.raw:
        text = RawText(item.raw)
    if text is not None:
        # The whole string names the work: title, authors, year, journal, volume, first page.
        candidates = lookups.found[index] if index is not None and lookups.found else []
        return by_string(item, text, candidates, lookups, evidence, whole_string)
    if item.title is None and not item.malformed and not item.url:
        evidence["decision"] = "no usable title"
        return Verdict(_S.UNRESOLVED, ResolverSource.RAW_FALLBACK, evidence)
    # 3./5. Unknown identifier or none, imported cited_work: the title decides.
    evidence["step"] = "title"
    query = item.query()
    verdict = by_title(query, lookups, evidence)
    if not verdict.verified:
        verdict = by_title_segments(query, lookups, evidence) or verdict
    return verdict


def _unsettled(item: ReferenceInput, verdict: Verdict, evidence: dict[str, Any]) -> Verdict:
    """Return the verdict of a reference nothing linked, with SPEC §2's steps 1 and 4 applied."""
    has_identifier = bool(item.arxiv_ids or item.dois or item.pith_arxiv_id)
    # 1. No usable title, no identifier, and nothing in the string named a record.
    if item.title is None and not has_identifier and not item.malformed and not item.url:
        evidence["decision"] = f"no usable title ({item.problem}) and no identifier"
        verdict.status = _S.PARSE_UNCERTAIN
        return verdict
    if item.malformed and not has_identifier:
        # 4. An invalid identifier that the title could not make up for.
        evidence["decision"] = "invalid identifier and no verified title: " + evidence["decision"]
        verdict.status = _S.MALFORMED_IDENTIFIER
    return verdict
