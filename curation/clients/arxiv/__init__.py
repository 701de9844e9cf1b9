"""arXiv over the network: OAI-PMH metadata (arXivRaw) and e-prints, plus the source store.

No models here: the ingestion services store what this package returns.
"""

from curation.clients.arxiv.client import ArxivClient, Eprint
from curation.clients.arxiv.errors import (
    ArxivBadRecord,
    ArxivError,
    ArxivNotFound,
    ArxivOffline,
    ArxivUnavailable,
    EprintTooLarge,
)
from curation.clients.arxiv.metadata import (
    ArxivMetadata,
    ArxivVersion,
    DeletedRecord,
    ResumptionPoint,
)
from curation.clients.arxiv.store import SourceStore

__all__ = [
    "ArxivBadRecord",
    "ArxivClient",
    "ArxivError",
    "ArxivMetadata",
    "ArxivNotFound",
    "ArxivOffline",
    "ArxivUnavailable",
    "ArxivVersion",
    "DeletedRecord",
    "EprintTooLarge",
    "Eprint",
    "ResumptionPoint",
    "SourceStore",
]
