"""What a reference carries besides the v1 fields, for the record page: its link, the host,
the software it names, its text, shortened, and the published version of the arXiv paper it
links (curation.catalogue.versions).

The v1 record keeps none of these (SPEC §1: raw text and normalised URLs are served by the
API and the pages, never added to v1), so web and software references without a title would
all read "(no title in the reference)". Read in one statement for the displayed references.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from ..catalogue.versions import shown_version
from ..models import Observation
from ..references import parse_reference

SHORT_TEXT = 160  # characters of reference text shown on the page; the evidence page has all
_KINDS = {"software": "software", "web": "web page"}
_GITHUB_KINDS = {"issue": "issue", "pull": "pull request", "commit": "commit"}


@dataclass(frozen=True)
class ReferenceNote:
    """What the page shows of a reference beyond its v1 fields."""

    text: str = ""  # the reference text, shortened ("" for an imported reference: none kept)
    url: str | None = None  # the first link it holds, repaired and normalised
    host: str | None = None  # that link's host, without "www."
    label: str | None = None  # what names it when it has no title: software, link or text
    kind: str | None = None  # "software" or "web page"
    no_canonical_record: bool = False  # a curator said no catalogue holds it
    # The linked arXiv paper's published version: {"arxiv_id", "doi", "via"} (None: none known).
    version: dict[str, str] | None = None


def shortened(text: str, limit: int = SHORT_TEXT) -> str:
    """Return text on one line, cut at a word boundary with "…" when longer than limit."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,.;:") + "…"


def _parts(url: str) -> tuple[str | None, str]:
    """Return the link's host (no "www.") and path; a link urllib cannot split (an unbalanced
    "[" reads as a broken IPv6 host) has neither, and is shown as printed."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None, ""
    return (host or "").removeprefix("www.") or None, parts.path


def _github_label(url: str, parsed_kind: str | None, ref: str | None) -> str:
    """Return "GitHub NVIDIA/Megatron-LM, issue 1611" from the link as printed (its case)."""
    owner_repo = "/".join(_parts(url)[1].strip("/").split("/")[:2])
    label = f"GitHub {owner_repo}" if owner_repo else "GitHub"
    if parsed_kind and ref:
        label += f", {_GITHUB_KINDS[parsed_kind]} {ref[:7] if parsed_kind == 'commit' else ref}"
    return label


def note_for(raw_text: str | None, no_canonical_record: bool = False) -> ReferenceNote:
    """Return what a reference carries, read from its text (pure: no database)."""
    if not raw_text or not raw_text.strip():
        return ReferenceNote(no_canonical_record=no_canonical_record)
    parsed = parse_reference(raw_text)
    url = parsed.url
    host, path = _parts(url) if url else (None, "")
    github = parsed.identifiers.github
    if url and host == "github.com":
        first = github[0] if github else None
        label = _github_label(url, first.kind if first else None, first.ref if first else None)
        if parsed.title and parsed.kind == "software":
            label = f"{parsed.title} ({label})"
    elif url:
        where = f"{host}{path.rstrip('/')}" if host else url
        label = f"{parsed.title} ({shortened(where, 60)})" if parsed.title else shortened(where, 80)
    else:
        label = f"“{shortened(raw_text, 80)}”"
    return ReferenceNote(
        text=shortened(raw_text),
        url=url,
        host=host,
        label=label,
        kind=_KINDS.get(parsed.kind),
        no_canonical_record=no_canonical_record,
    )


def _worth_reading(raw_text: str | None, no_canonical_record: bool, untitled: bool) -> bool:
    """Return whether the page needs a note: parsing every reference would cost each render."""
    if not raw_text:
        return no_canonical_record
    lowered = raw_text.lower()
    return untitled or no_canonical_record or "://" in lowered or "www." in lowered


def reference_notes(untitled: dict[str, bool]) -> dict[str, ReferenceNote]:
    """Return notes by observation id for the displayed references (id -> has no title)."""
    if not untitled:
        return {}
    # Of the evidence, only the two keys that say what version a link has.
    rows: Any = Observation.objects.filter(pk__in=list(untitled)).values_list(
        "pk", "raw_text", "no_canonical_record", "cited_paper__arxiv_id", "cited_paper__doi",
        "resolution__evidence__version_set", "resolution__evidence__version_conflict",
    )  # fmt: skip
    notes = {}
    for pk, raw_text, no_record, arxiv_id, paper_doi, version_set, conflict in rows:
        key = str(pk)
        evidence = {"version_set": version_set, "version_conflict": conflict}
        version = shown_version(arxiv_id, paper_doi, evidence)
        if _worth_reading(raw_text, no_record, untitled.get(key, False)):
            notes[key] = replace(note_for(raw_text, no_record), version=version)
        elif version is not None:
            notes[key] = ReferenceNote(version=version)
    return notes
