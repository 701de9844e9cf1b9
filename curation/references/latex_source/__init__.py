"""Read a paper's reference list out of its arXiv e-print (LaTeX source), without Django.

- `bibliography_from_eprint(data, *, name, limits=ArchiveLimits()) -> SourceBibliography`
  reads the e-print safely (archive.py) and raises SourceArchiveError for what it refuses,
  PdfOnlySource when arXiv serves only a PDF.
- `bibliography_from_files(files, *, name) -> SourceBibliography` does the rest on a tree of
  files already read: the main .tex (tex.py), then the .bbl, else the .bib files and the
  citations, else an inline thebibliography (bibliography.py).
"""

from curation.references.latex_source.archive import (
    ArchiveLimits,
    PdfOnlySource,
    SourceArchiveError,
    read_eprint,
)
from curation.references.latex_source.bibliography import (
    METHODS,
    SourceBibliography,
    bibliography_from_eprint,
    bibliography_from_files,
)

__all__ = [
    "METHODS",
    "ArchiveLimits",
    "PdfOnlySource",
    "SourceArchiveError",
    "SourceBibliography",
    "bibliography_from_eprint",
    "bibliography_from_files",
    "read_eprint",
]
