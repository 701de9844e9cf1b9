"""Structured logs: one JSON object per line, so a log pipeline can filter by field; refusals
(401, 429) summed up per client instead of a line per request."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from django.http import HttpRequest

from .client_ip import client_address
from .outage import OncePerInterval

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """Format a record as JSON with time, level, logger, message and any extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        payload.update(
            {k: v for k, v in vars(record).items() if k not in _STANDARD and k[:1] != "_"}
        )
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        return json.dumps(payload, default=str, ensure_ascii=False)


class RefusalsOncePerClient(OncePerInterval):
    """Pass one 401 or 429 line per client address and status per interval; count the others.

    Django logs every 4xx answer (django.request, WARNING): a client guessing tokens or ignoring
    Retry-After writes a line per request, hundreds a second. The line that passes names the
    address and how many like it were held back since the last one. Other answers pass untouched.
    """

    STATUSES = frozenset({401, 429})

    def filter(self, record: logging.LogRecord) -> bool:
        """Return True for the first refusal of its address and status in the interval."""
        status = getattr(record, "status_code", None)
        # Configuring logging again (dictConfig keeps a logger's filters) stacks a second filter.
        if status not in self.STATUSES or getattr(record, "_refusal_noted", False):
            return True
        request = getattr(record, "request", None)
        address = client_address(request) if isinstance(request, HttpRequest) else "unknown"
        held = self.admit((int(status), address))
        if held is None:
            return False
        # Appended to the format string, so a '%' in an address must not read as a placeholder.
        note = f" from {address}".replace("%", "%%")
        if held:
            note += f" ({held} more like it in the last {self.seconds:g} s)"
        record.msg = f"{record.msg}{note}"
        record._refusal_noted = True  # private: not a JSON field
        return True
