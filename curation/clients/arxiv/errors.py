"""What can go wrong talking to arXiv: one base class, so callers can catch them all."""

from __future__ import annotations


class ArxivError(Exception):
    """arXiv could not answer the request (or answered something unreadable)."""


class ArxivOffline(ArxivError):
    """Offline mode is on (CITEREC_OFFLINE=1): nothing was sent."""


class ArxivUnavailable(ArxivError):
    """arXiv gave up after retries (429/5xx/timeouts), or asked us to wait too long."""


class ArxivNotFound(ArxivError):
    """arXiv has no such paper (idDoesNotExist, or 404 for an e-print)."""


class EprintTooLarge(ArxivError):
    """The e-print is larger than CITEREC_MAX_EPRINT_BYTES; nothing was kept."""


class ArxivBadRecord(ArxivError):
    """A record's XML lacks what every arXivRaw record has (an id, a datestamp)."""
