"""Detect withdrawn papers in arXiv metadata snapshot records."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date
from email.utils import parsedate_to_datetime
from typing import Any

from curation.notice_events import EventType, ReportedEvent

_SUBJECT = r"(?:paper|article|manuscript|submission|preprint|e-?print|work|version)"
_BY_WHOM = r"(?:the\s+)?(?:authors?|author\(s\)|submitter|arxiv(?:\s+admin\w*)?|moderators?)"

# Phrases arXiv and authors use for a withdrawal. Each is anchored to the
# statement itself ("this paper has been withdrawn", a comment that opens with
# "Withdrawn") so that a comment mentioning some other withdrawn paper, or a
# "withdrawn version superseded by ..." remark, does not fire.
_WITHDRAWAL = re.compile(
    rf"""
    (?:^|[.;!:]\s+|\bthis\s+|\bthe\s+|\bour\s+)   # the statement is about this paper
    {_SUBJECT}\s+(?:has|have|had|is|was)\s+(?:been\s+|now\s+been\s+)?withdrawn
    (?!\s+from\s+(?!arxiv))                        # not "withdrawn from the conference"
    |
    ^\s*(?:{_SUBJECT}\s+)?withdrawn                 # the comment opens with "(Paper) withdrawn"
    (?:\s*$|\s*[.!,;:(\-\u2013\u2014]|\s+(?:by|due|because|for|owing|as|pending|at|on)\b)
    |
    ^\s*(?:this\s+{_SUBJECT}\s+(?:is\s+|was\s+|has\s+been\s+)?)?withdrawn\s+by\s+{_BY_WHOM}
    """,
    re.IGNORECASE | re.VERBOSE,
)
# "An earlier version of this paper was withdrawn": about another version.
_OTHER_VERSION = re.compile(
    r"\b(?:earlier|previous|prior|older|first|old)\s+(?:version|draft|paper)\b[^.;]*withdrawn",
    re.IGNORECASE,
)


def is_withdrawal_comment(text: str | None) -> bool:
    """Return whether an arXiv comment says that this paper is withdrawn."""
    # Cheap test first: the import runs this over every record of arXiv.
    if not text or "withdraw" not in text.lower():
        return False
    flat = " ".join(text.split())
    return _WITHDRAWAL.search(flat) is not None and _OTHER_VERSION.search(flat) is None


def withdrawal_event(record: Mapping[str, Any]) -> ReportedEvent | None:
    """Return a withdrawal event for a snapshot record whose paper is withdrawn, else None."""
    arxiv_id = str(record.get("id") or "").strip()
    if not arxiv_id:
        return None
    latest = _latest_version(record.get("versions"))
    withdrawn_version = bool(latest and latest.get("withdrawn"))
    comment = record.get("comments")
    comment_text = comment if isinstance(comment, str) else None
    if not withdrawn_version and not is_withdrawal_comment(comment_text):
        return None
    version = str(latest.get("version")) if latest else None
    return ReportedEvent(
        type=EventType.WITHDRAWAL,
        source="arxiv",
        work_arxiv_id=arxiv_id,
        notice_doi=None,
        notice_url=f"https://arxiv.org/abs/{arxiv_id}{version or ''}",
        date=_version_date(latest),
        # The comment is the only reason arXiv carries ("due to a crucial error").
        reasons=(" ".join(comment_text.split()),) if comment_text else (),
        source_record_id=f"{arxiv_id}{version or ''}",
    )


def _latest_version(versions: Any) -> Mapping[str, Any] | None:
    if not isinstance(versions, list):
        return None

    def number(entry: Mapping[str, Any]) -> int:
        match = re.fullmatch(r"v(\d+)", str(entry.get("version", "")).strip())
        return int(match.group(1)) if match else -1

    candidates = [v for v in versions if isinstance(v, Mapping)]
    return max(candidates, key=number, default=None)


def _version_date(version: Mapping[str, Any] | None) -> date | None:
    """Return the UTC day of a version's `created` ("Mon, 2 Apr 2007 19:18:42 GMT")."""
    created = version.get("created") if version else None
    if not isinstance(created, str):
        return None
    try:
        moment = parsedate_to_datetime(created)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).date()
