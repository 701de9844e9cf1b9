"""The Crossref REST API client: polite, rate-limited across workers, cached, offline-aware."""

from curation.crossref.client import (
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
