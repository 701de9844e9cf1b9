"""The Crossref REST API client: polite, rate-limited across workers, cached, offline-aware."""

from curation.clients.crossref.client import (
    CrossrefClient,
    CrossrefError,
    CrossrefOffline,
    CrossrefUnavailable,
    get_client,
)

__all__ = [
    "CrossrefClient",
    "CrossrefError",
    "CrossrefOffline",
    "CrossrefUnavailable",
    "get_client",
]
