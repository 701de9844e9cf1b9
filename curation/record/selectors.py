"""Reads for serving records: a record's current version, in one indexed statement."""

from __future__ import annotations

from dataclasses import dataclass

from curation.server_cursors import server_bound_cursor

# Both lookups are by primary or unique key: the paper by arxiv_id, its version by paper id.
_VERSION_SQL = """
SELECT p.id, v.token FROM curation_paper p
  LEFT JOIN record_recordversion v ON v.paper_id = p.id
 WHERE p.arxiv_id = %s
"""


@dataclass(frozen=True)
class Version:
    """Which state of a paper's record is current: the paper and its last bump's token."""

    paper_pk: int
    token: str  # "0" while nothing the record shows has changed since the paper was stored

    @property
    def key(self) -> str:
        """Return a cache key part naming this version (never reused for other content)."""
        return f"{self.paper_pk}:{self.token}"


def record_version(arxiv_id: str) -> Version | None:
    """Return the current version of a paper's record, or None for an unknown paper."""
    with server_bound_cursor() as cursor:
        cursor.execute(_VERSION_SQL, [arxiv_id])
        row = cursor.fetchone()
    if row is None:
        return None
    paper_pk, token = row
    return Version(paper_pk, "0" if token is None else token.hex)
