"""Compose a readable reference string from structured fields (BibTeX, TEI, JATS, biblatex)."""

from __future__ import annotations

from collections.abc import Mapping


def compose_raw(fields: Mapping[str, str]) -> str:
    """Return "Authors. Year. Title. Venue, volume, pages. doi:… arXiv:… URL" from fields."""
    parts: list[str] = []
    if fields.get("author"):
        parts.append(fields["author"].rstrip("."))
    if fields.get("year"):
        parts.append(fields["year"])
    if fields.get("title"):
        parts.append(fields["title"].rstrip("."))
    venue = fields.get("venue") or ""
    details = ", ".join(
        v
        for v in (
            venue,
            fields.get("volume", ""),
            fields.get("pages", ""),
            fields.get("publisher", ""),
        )
        if v
    )
    if details:
        parts.append(details)
    text = ". ".join(p for p in parts if p) + ("." if parts else "")
    tail = []
    if fields.get("doi"):
        tail.append(f"doi:{fields['doi']}")
    if fields.get("arxiv"):
        tail.append(f"arXiv:{fields['arxiv']}")
    if fields.get("url"):
        tail.append(fields["url"])
    if fields.get("note"):
        tail.append(fields["note"])
    return " ".join([text, *tail]).strip()
