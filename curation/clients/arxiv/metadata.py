"""arXiv metadata as citerec reads it: OAI-PMH arXivRaw records parsed into plain dataclasses."""

from __future__ import annotations

import email.utils
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from curation.clients.arxiv.errors import ArxivBadRecord
from curation.references.identifiers import parse_arxiv

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
ARXIV_RAW_NS = "http://arxiv.org/OAI/arXivRaw/"
OAI_ID_PREFIX = "oai:arXiv.org:"
_OAI = f"{{{OAI_NS}}}"
_RAW = f"{{{ARXIV_RAW_NS}}}"


@dataclass(frozen=True)
class ArxivVersion:
    """One version of a paper: its number, when it was submitted (UTC) and arXiv's size label."""

    version: int
    submitted_at: datetime
    size: str | None = None


@dataclass(frozen=True)
class ArxivMetadata:
    """A paper as arXivRaw describes it; text fields have their line breaks collapsed."""

    arxiv_id: str
    datestamp: date  # the OAI datestamp: when arXiv last changed the record
    title: str
    authors: str  # arXiv's author string, as written ("A. One, B. Two and C. Three")
    categories: list[str]  # primary first, as arXiv lists them
    journal_ref: str | None
    doi: str | None  # as arXiv has it: it may hold several DOIs separated by spaces
    comments: str | None
    license: str | None
    versions: tuple[ArxivVersion, ...]  # in version order
    abstract: str | None = None

    @property
    def latest_version(self) -> int | None:
        """Return the highest version number arXiv lists, or None when it lists none."""
        return max((v.version for v in self.versions), default=None)


@dataclass(frozen=True)
class DeletedRecord:
    """A record arXiv's OAI reports deleted (`<header status="deleted">`)."""

    arxiv_id: str
    datestamp: date


@dataclass(frozen=True)
class ResumptionPoint:
    """The end of a harvest page: resume with `token`; None means the list is complete."""

    token: str | None
    cursor: int | None
    complete_list_size: int | None


def parse_record(record: Any) -> ArxivMetadata | DeletedRecord:
    """Return the paper (or its deletion) an OAI-PMH `<record>` element with arXivRaw holds."""
    header = record.find(f"{_OAI}header")
    if header is None:
        raise ArxivBadRecord("an OAI record without a <header>")
    identifier = _text(header, f"{_OAI}identifier") or ""
    datestamp = _datestamp(header, identifier)
    if header.get("status") == "deleted":
        return DeletedRecord(arxiv_id_of(identifier.removeprefix(OAI_ID_PREFIX)), datestamp)
    raw = record.find(f"{_OAI}metadata/{_RAW}arXivRaw")
    if raw is None:
        raise ArxivBadRecord(f"{identifier or 'an OAI record'}: no arXivRaw metadata")
    return parse_arxiv_raw(raw, datestamp=datestamp)


def parse_arxiv_raw(raw: Any, *, datestamp: date) -> ArxivMetadata:
    """Return the paper an `<arXivRaw>` element describes (the datestamp is the OAI header's)."""
    arxiv_id = arxiv_id_of(_text(raw, f"{_RAW}id") or "")
    versions = sorted(
        (_version(element, arxiv_id) for element in raw.iterfind(f"{_RAW}version")),
        key=lambda v: v.version,
    )
    return ArxivMetadata(
        arxiv_id=arxiv_id,
        datestamp=datestamp,
        title=_text(raw, f"{_RAW}title") or "",
        authors=_text(raw, f"{_RAW}authors") or "",
        categories=(_text(raw, f"{_RAW}categories") or "").split(),
        journal_ref=_text(raw, f"{_RAW}journal-ref"),
        doi=_text(raw, f"{_RAW}doi"),
        comments=_text(raw, f"{_RAW}comments"),
        license=_text(raw, f"{_RAW}license"),
        versions=tuple(versions),
        abstract=_text(raw, f"{_RAW}abstract"),
    )


def arxiv_id_of(text: str) -> str:
    """Return the clean arXiv id (no version) in an id-only string, or raise ArxivBadRecord."""
    parsed = parse_arxiv(text)
    if parsed is None:
        raise ArxivBadRecord(f"{text!r} is not an arXiv id")
    return parsed.id


def _text(parent: Any, tag: str) -> str | None:
    """Return an element's text with its line breaks and runs of spaces collapsed, or None."""
    element = parent.find(tag)
    if element is None or element.text is None:
        return None
    return " ".join(element.text.split()) or None


def _datestamp(header: Any, identifier: str) -> date:
    text = _text(header, f"{_OAI}datestamp")
    try:
        # arXiv's granularity is a day; a repository may add a time ("2024-01-03T00:00:00Z").
        return date.fromisoformat((text or "")[:10])
    except ValueError:
        raise ArxivBadRecord(f"{identifier}: datestamp {text!r} is not a date") from None


def _version(element: Any, arxiv_id: str) -> ArxivVersion:
    label = element.get("version") or ""
    when = _text(element, f"{_RAW}date") or ""
    if not (label[:1] in "vV" and label[1:].isdigit()):
        raise ArxivBadRecord(f"{arxiv_id}: version {label!r} is not v<N>")
    try:
        submitted = email.utils.parsedate_to_datetime(when)  # "Mon, 2 Apr 2007 19:18:42 GMT"
    except (TypeError, ValueError):
        raise ArxivBadRecord(f"{arxiv_id} {label}: date {when!r} is not an RFC 2822 date") from None
    if submitted.tzinfo is None:  # "-0000" in RFC 2822 means UTC with no zone stated
        submitted = submitted.replace(tzinfo=UTC)
    return ArxivVersion(int(label[1:]), submitted.astimezone(UTC), _text(element, f"{_RAW}size"))
