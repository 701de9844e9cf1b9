"""Pure-Python reference reading: repair, identifiers, parsing and bibliography formats.

Nothing here imports Django; the Django side calls these functions:

- `parse_reference(raw) -> ParsedReference`
- `normalize_reference_text(raw) -> str` (observation identity, SPEC §6)
- `normalize_title(title) -> str`, `compact_title(title) -> str` (title matching)
- `read_references(data, format="auto") -> Iterator[SourceReference]`, `detect_format(text)`

The modules parse_reference runs through may be compiled (native.py): they are used only while
they match their sources, so this runs first.
"""

from curation.references import native

native.prefer_fresh()

from curation.references.authors import Author  # noqa: E402 (after the compiled-modules check)
from curation.references.formats import (  # noqa: E402
    ReferenceInputError,
    SourceReference,
    detect_format,
    read_references,
)
from curation.references.identifiers import (  # noqa: E402
    ArxivId,
    Doi,
    GithubRef,
    Identifiers,
    Malformed,
    extract_identifiers,
    normalize_url,
    parse_arxiv,
)
from curation.references.normalize import compact_title, normalize_reference_text, normalize_title  # noqa: E402
from curation.references.parse import ParsedReference, parse_reference  # noqa: E402
from curation.references.repair import Repair, repair_reference  # noqa: E402

__all__ = [
    "ArxivId",
    "Author",
    "Doi",
    "GithubRef",
    "Identifiers",
    "Malformed",
    "ParsedReference",
    "ReferenceInputError",
    "Repair",
    "SourceReference",
    "compact_title",
    "detect_format",
    "extract_identifiers",
    "normalize_reference_text",
    "normalize_title",
    "normalize_url",
    "parse_arxiv",
    "parse_reference",
    "read_references",
    "repair_reference",
]
