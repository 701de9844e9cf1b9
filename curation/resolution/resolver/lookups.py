"""What a batch of references needs from the catalogues, asked once for all of them: the records
their identifiers name (and Crossref for DOIs the catalogue lacks), the arXiv paper of each DOI
record, word frequencies, and the first candidates of each reference's searches."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from curation.catalogue import records as catalogue
from curation.catalogue.records import Candidate, TitleSearch
from curation.catalogue.versions import VersionSets
from curation.clients.crossref import CrossrefError, get_client
from curation.references.identifiers import ARXIV_DOI_PREFIX
from curation.resolution import matching
from curation.resolution.catalogue_rows import BadLine, crossref_fields
from curation.resolution.validate import RawText
from curation.states import ResolverSource

from .inputs import ReferenceInput


@dataclass
class Lookups:
    """Identifier lookups done once for a batch of references."""

    papers: dict[str, Candidate] = field(default_factory=dict)
    works: dict[str, Candidate] = field(default_factory=dict)
    papers_by_doi: dict[str, Candidate] = field(default_factory=dict)
    # Which arXiv paper each DOI record is a version of, and back (curation.catalogue.versions).
    versions: VersionSets = field(default_factory=VersionSets)
    fetched_versions: dict[str, list[str]] = field(default_factory=dict)  # by fetched DOI
    crossref_notes: dict[str, str] = field(default_factory=dict)
    # What the Crossref API answered for DOIs the catalogue lacked: the caller keeps them.
    fetched: dict[str, dict[str, Any]] = field(default_factory=dict)
    frequencies: dict[str, int] = field(default_factory=dict)
    # Every word looked up in this batch, with its count when the catalogue has it.
    asked: set[str] = field(default_factory=set)
    counted: dict[str, int] = field(default_factory=dict)
    texts: list[RawText | None] = field(default_factory=list)
    found: list[list[Candidate]] = field(default_factory=list)  # per input, from its raw text

    @classmethod
    def for_inputs(cls, inputs: Sequence[ReferenceInput]) -> Lookups:
        """Return the catalogue records every identifier of the inputs resolves to, and the
        first candidates of the inputs their identifiers do not decide."""
        arxiv_ids, dois = _identifiers_of(inputs)
        lookups = cls(papers=catalogue.papers_by_arxiv_id(arxiv_ids))
        lookups.versions.know(lookups.papers.values())
        lookups.works = catalogue.works_by_doi(dois)
        for doi in sorted(dois - set(lookups.works)):
            lookups._ask_crossref(doi)
        # The arXiv paper each DOI record is a version of, for all of them at once.
        works = lookups.works
        lookups.versions.ask_dois(
            [d for d, c in works.items() if c.source == ResolverSource.DOI],
            [(works[d], v) for d, v in lookups.fetched_versions.items() if d in works],
        )
        lookups.papers_by_doi = lookups.versions.papers_by_doi()
        lookups._search_first(inputs)
        return lookups

    def _search_first(self, inputs: Sequence[ReferenceInput]) -> None:
        """Find the first candidates of each input by its title and its string's locator.

        A reference whose identifier resolves is decided by it: no searches for it, and its
        string is prepared only if the identifier's record needs checking against it.
        """
        searching = [item.raw is not None and not self.resolves(item) for item in inputs]
        words = {
            w
            for item, wanted in zip(inputs, searching, strict=True)
            if item.title and (wanted or item.raw is None)
            for w in item.query().title_norm.split()
        }
        self.frequencies = self.word_frequencies(words)
        self.texts = [
            RawText(item.raw) if wanted and item.raw else None
            for item, wanted in zip(inputs, searching, strict=True)
        ]
        searches = [
            TitleSearch.for_title(item.query().title or "", self.frequencies)
            if wanted and item.title
            else None
            for item, wanted in zip(inputs, searching, strict=True)
        ]
        self.found = matching.first_candidates(self.texts, searches)

    def resolves(self, item: ReferenceInput) -> bool:
        """Return whether one of the reference's identifiers names a known record."""
        if any(a in self.papers for a in item.arxiv_ids):
            return True
        if item.pith_arxiv_id and item.pith_arxiv_id in self.papers:
            return True
        for doi in item.dois:
            if doi.startswith(ARXIV_DOI_PREFIX):
                if doi[len(ARXIV_DOI_PREFIX) :] in self.papers:
                    return True
            elif doi in self.works:
                return True
        return False

    def word_frequencies(self, words: set[str]) -> dict[str, int]:
        """Return the catalogue frequencies of these words; each word is looked up once a batch
        (the whole-string pass asks again for the title words the first pass asked for)."""
        self.counted.update(catalogue.word_frequencies(words - self.asked))
        self.asked |= words
        return {w: self.counted[w] for w in words if w in self.counted}

    def search_whole_strings(self, wanted: Sequence[int]) -> None:
        """Add candidates by the rarest words of the whole string, for the inputs in wanted."""
        texts = [self.texts[i] for i in wanted]
        frequencies = self.word_frequencies({w for t in texts if t for w in t.words})
        for i, found in zip(wanted, matching.string_candidates(texts, frequencies), strict=True):
            self.found[i] = self.found[i] + found

    def _ask_crossref(self, doi: str) -> None:
        """Look an unknown DOI up on the Crossref API (online mode only) and use the answer.

        Nothing is stored here: `fetched` goes back to the caller, whose service keeps it in
        the local catalogue with the verdicts it writes."""
        if settings.CITEREC_OFFLINE:
            self.crossref_notes[doi] = "offline: Crossref API not asked"
            return
        try:
            message = get_client().work(doi)
        except CrossrefError as exc:
            self.crossref_notes[doi] = f"Crossref API unavailable: {exc}"
            return
        if message is None:
            self.crossref_notes[doi] = "Crossref API: not found"
            return
        try:
            fields = crossref_fields(message)
        except BadLine as exc:
            self.crossref_notes[doi] = f"Crossref API: unreadable answer ({exc})"
            return
        self.fetched[doi] = message
        if fields["doi"] == doi:
            self.works[doi] = catalogue.crossref_candidate(fields)
            self.fetched_versions[doi] = fields["arxiv_versions"]
        self.crossref_notes[doi] = "Crossref API: found"


def _identifiers_of(inputs: Sequence[ReferenceInput]) -> tuple[set[str], set[str]]:
    """Return the arXiv ids (those inside arXiv DOIs too) and the other DOIs the inputs name."""
    arxiv_ids, dois = set(), set()
    for item in inputs:
        arxiv_ids.update(item.arxiv_ids)
        if item.pith_arxiv_id:
            arxiv_ids.add(item.pith_arxiv_id)
        for doi in item.dois:
            if doi.startswith(ARXIV_DOI_PREFIX):
                arxiv_ids.add(doi[len(ARXIV_DOI_PREFIX) :])
            else:
                dois.add(doi)
    return arxiv_ids, dois
