"""Recognise the shape of an arXiv id in a URL, so malformed ids give 404 before any query."""

from __future__ import annotations

import re

_NEW_STYLE = re.compile(r"^\d{2}(0[1-9]|1[0-2])\.\d{4,5}(v\d+)?$")
_OLD_STYLE = re.compile(r"^[a-z][a-z\-]*(\.[A-Za-z\-]{2,})?/\d{2}(0[1-9]|1[0-2])\d{3}(v\d+)?$")


def looks_like_arxiv_id(value: str) -> bool:
    """Return whether value has the shape of a new-style or old-style arXiv id."""
    return bool(_NEW_STYLE.match(value) or _OLD_STYLE.match(value))
