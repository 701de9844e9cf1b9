"""Pure-Python reference reading: repair, identifiers, parsing and bibliography formats.

Nothing here imports Django; the Django side calls these functions:

- `parse_reference(raw) -> ParsedReference`
- `normalize_reference_text(raw) -> str` (observation identity, SPEC §6)
- `normalize_title(title) -> str`, `compact_title(title) -> str` (title matching)
- `read_references(data, format="auto") -> Iterator[ListedReference]`, `detect_format(text)`
"""

from curation.references.authors import Author
from curation.references.formats import (
    ListedReference,
    ReferenceInputError,
    detect_format,
    read_references,
)
from curation.references.identifiers import (
    ArxivId,
    Doi,
    GithubRef,
    Identifiers,
    Malformed,
    extract_identifiers,
    normalize_url,
    parse_arxiv,
)
from curation.references.normalize import compact_title, normalize_reference_text, normalize_title
from curation.references.parse import ParsedReference, parse_reference
from curation.references.repair import Repair, repair_reference

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
    "ListedReference",
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
