"""What the ingestion services need from a source bibliography, in the import's terms."""

from __future__ import annotations

from curation.limits import current_limits
from curation.references.latex_source import ArchiveLimits, SourceBibliography
from curation.references.listed import ListedReference


def entries_from_bibliography(bibliography: SourceBibliography) -> list[ListedReference]:
    """Return the bibliography's references in order, leaving out entries with no text."""
    return [e for e in bibliography.entries if e.raw.strip()]


def archive_limits() -> ArchiveLimits:
    """Return the e-print limits in force (CITEREC_MAX_SOURCE_*, README "Settings")."""
    limits = current_limits()
    return ArchiveLimits(
        max_members=limits.source_members,
        max_total_bytes=limits.source_bytes,
        max_member_bytes=limits.source_member_bytes,
        max_ratio=limits.source_ratio,
        max_references=limits.source_references,
        max_reference_chars=limits.reference_chars,
    )
