"""arXiv metadata (OAI-PMH arXivRaw, one paper or a harvest page) into the catalogue."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from curation.audit import Actor, audited
from curation.clients.arxiv.metadata import ArxivMetadata, DeletedRecord
from curation.models import Paper
from curation.resolution.catalogue_rows import arxiv_row
from curation.resolution.services.catalogue_imports import catalogue_rows_upsert


def _version_created(metadata: ArxivMetadata) -> list[dict[str, str]]:
    # The snapshot's own date form, so both inputs go through one row builder (arxiv_row).
    return [
        {
            "version": f"v{v.version}",
            "created": v.submitted_at.strftime("%a, %d %b %Y %H:%M:%S GMT"),
        }
        for v in metadata.versions
    ]


def snapshot_item(metadata: ArxivMetadata) -> dict[str, Any]:
    """Return the paper as an object of the arXiv metadata snapshot (SPEC §5)."""
    return {
        "id": metadata.arxiv_id,
        "title": metadata.title,
        "authors": metadata.authors,
        "doi": metadata.doi or "",
        "categories": " ".join(metadata.categories),
        "versions": _version_created(metadata),
        "comments": metadata.comments or "",
        "journal-ref": metadata.journal_ref or "",
        "update_date": metadata.datestamp.isoformat() if metadata.datestamp else "",
    }


def metadata_store(*, items: Sequence[ArxivMetadata], actor: Actor, reason: str) -> tuple[int, int]:
    """Insert or update these papers in the catalogue; return (inserted, updated).

    A record arXiv serves without a title (never seen, but the harvest must not stop on it)
    is left out; the rest of the page is stored.
    """
    rows = []
    for line, metadata in enumerate(items, 1):
        if metadata.title.strip():
            rows.append((line, *arxiv_row(snapshot_item(metadata))))
    if not rows:
        return 0, 0
    return catalogue_rows_upsert(rows, actor=actor, reason=reason)


def metadata_delete(*, records: Sequence[DeletedRecord], actor: Actor, reason: str) -> int:
    """Take papers arXiv reports deleted out of the catalogue; return how many changed.

    They are kept (records may cite them, history refers to them) but no longer offered as
    resolution candidates from the catalogue.
    """
    ids = [record.arxiv_id for record in records]
    with audited(actor, reason):  # one statement: the history trigger records each paper
        return Paper.objects.filter(arxiv_id__in=ids, in_catalogue=True).update(in_catalogue=False)
