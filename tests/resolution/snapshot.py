"""Build arXiv-snapshot lines (the JSON-lines form of the arXiv metadata dump) for tests."""

from __future__ import annotations

import json
from typing import Any

_DAYS = "Mon Tue Wed Thu Fri Sat Sun".split()


def created(year: int, month: int = 3) -> str:
    """Return an arXiv version timestamp."""
    return f"{_DAYS[(year + month) % 7]}, 2 {['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][month - 1]} {year} 10:00:00 GMT"


def snapshot_item(
    arxiv_id: str,
    title: str,
    authors: str,
    year: int,
    updated: int | None = None,
    doi: str = "",
    journal_ref: str = "",
    category: str = "cs.LG",
) -> dict[str, Any]:
    """Return one snapshot object."""
    versions = [{"version": "v1", "created": created(year)}]
    if updated and updated != year:
        versions.append({"version": "v2", "created": created(updated, 6)})
    surname = authors.split(",")[0].split()[-1]
    return {
        "id": arxiv_id,
        "submitter": authors.split(",")[0],
        "authors": authors,
        "title": title,
        "comments": None,
        "journal-ref": journal_ref or None,
        "doi": doi or None,
        "categories": category,
        "abstract": "  An abstract.\n",
        "versions": versions,
        "update_date": f"{updated or year}-06-02",
        "authors_parsed": [[surname, "", ""]],
    }


def snapshot_line(*args: Any, **kwargs: Any) -> str:
    """Return one snapshot line."""
    return json.dumps(snapshot_item(*args, **kwargs))
