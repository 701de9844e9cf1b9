"""Turn Crossref REST API JSON (works and the notices that update them) into events."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any
from urllib.parse import quote

from curation.notice_events import (
    EventType,
    ReportedEvent,
    event_type_from_crossref,
    severity_rank,
)
from curation.references.identifiers import arxiv_id_from_doi, canonical_doi, is_arxiv_doi

Json = Mapping[str, Any]


def crossref_query_doi(work_doi: str | None, arxiv_published_doi: str | None) -> str | None:
    """Return the DOI to ask Crossref about for a work, or None when there is none.

    arXiv DOIs (10.48550/arXiv.*) are DataCite's, so Crossref knows nothing of them;
    for an arXiv paper the journal DOI from its arXiv metadata is asked instead.
    """
    for candidate in (work_doi, arxiv_published_doi):
        doi = canonical_doi(candidate)
        if doi is not None and not is_arxiv_doi(doi):
            return doi
    return None


def crossref_work_path(doi: str) -> str:
    """Return the `/works/{doi}` path with the DOI escaped for a URL path."""
    return "/works/" + quote(doi, safe="/")


def crossref_notices_params(doi: str) -> dict[str, str] | None:
    """Return the query for notices that update a DOI, or None if it cannot be asked.

    Crossref separates filters with commas, so `updates:` cannot name a DOI that
    contains one: the query would silently ask about a truncated DOI. For such a
    DOI only the work's own `updated-by` is available.
    """
    if "," in doi:
        return None
    return {"filter": f"updates:{doi}"}


def events_from_work(message: Json, *, work_doi: str | None = None) -> list[ReportedEvent]:
    """Return the events a `/works/{doi}` message reports about that work (`updated-by`)."""
    message = _unwrap(message)
    doi = canonical_doi(work_doi) or canonical_doi(message.get("DOI"))
    if doi is None:
        return []
    # A notice's `update-to` names the work it amends. Some notices also carry
    # an `updated-by` that points back at the notice itself; that echo says
    # "this is a notice", not "this notice was retracted". An in-place notice
    # (a work that updates itself, with no other target) is a real update.
    updates_others = any(
        canonical_doi(entry.get("DOI")) not in (None, doi)
        for entry in _entries(message, "update-to")
    )
    events = []
    for entry in _entries(message, "updated-by"):
        notice_doi = canonical_doi(entry.get("DOI"))
        if updates_others and notice_doi == doi:
            continue
        events.append(_event(doi, entry, notice_doi, fallback_date=None))
    return dedupe_events(events)


def events_from_notices(listing: Json | Iterable[Json], *, work_doi: str) -> list[ReportedEvent]:
    """Return the events that `/works?filter=updates:{doi}` items report about that DOI."""
    doi = canonical_doi(work_doi)
    if doi is None:
        return []
    events = []
    for item in _items(listing):
        notice_doi = canonical_doi(item.get("DOI"))
        # Only the item's `update-to` entries that name the queried work count:
        # one notice may amend several works, and its own `updated-by` (if any)
        # is about the notice, not about the work.
        for entry in _entries(item, "update-to"):
            if canonical_doi(entry.get("DOI")) == doi:
                events.append(_event(doi, entry, notice_doi, fallback_date=_item_date(item)))
    return dedupe_events(events)


def crossref_events(
    *,
    work_doi: str,
    work_message: Json | None = None,
    notices: Json | Iterable[Json] | None = None,
) -> list[ReportedEvent]:
    """Return the events both Crossref paths report about a work, deduplicated and sorted."""
    events: list[ReportedEvent] = []
    if work_message is not None:
        events += events_from_work(work_message, work_doi=work_doi)
    if notices is not None:
        events += events_from_notices(notices, work_doi=work_doi)
    return sorted(dedupe_events(events), key=lambda e: e.sort_key)


def dedupe_events(events: Iterable[ReportedEvent]) -> list[ReportedEvent]:
    """Collapse the events that name the same notice into one.

    One notice is one document, so the events of one source that share a work
    and a notice DOI (the same notice listed twice, under two types, or found
    through both `updated-by` and `update-to`) become one event. Its type is the
    most specific one (anything over `other`), then the most severe (a notice
    both the publisher and Retraction Watch list, one as a correction and one as
    a retraction, is shown as a retraction and reviewed first). Its date, notice
    URL and record id are the winner's, filled from the others where missing;
    its reasons are all the reasons given. Events without a notice DOI are kept.
    """
    groups: dict[tuple[Any, ...], list[ReportedEvent]] = {}
    for event in events:
        key: tuple[Any, ...] = (event.work_doi, event.work_arxiv_id, event.source)
        key += (event.notice_doi,) if event.notice_doi else (id(event),)
        groups.setdefault(key, []).append(event)
    return [_merge(group) for group in groups.values()]


def _merge(group: Sequence[ReportedEvent]) -> ReportedEvent:
    ranked = sorted(
        group,
        key=lambda e: (
            e.type is EventType.OTHER,
            severity_rank(e.type),
            e.source_record_id is None,
            e.date is None,
            e.sort_key,
        ),
    )
    winner = ranked[0]

    def first(attr: str) -> Any:
        return next((v for e in ranked if (v := getattr(e, attr)) is not None), None)

    return ReportedEvent(
        type=winner.type,
        source=winner.source,
        work_doi=winner.work_doi,
        work_arxiv_id=winner.work_arxiv_id,
        notice_doi=winner.notice_doi,
        notice_url=first("notice_url"),
        date=first("date"),
        reasons=tuple(dict.fromkeys(r for e in ranked for r in e.reasons)),
        source_record_id=first("source_record_id"),
    )


def _event(
    work_doi: str, entry: Json, notice_doi: str | None, *, fallback_date: date | None
) -> ReportedEvent:
    record_id = entry.get("record-id")
    return ReportedEvent(
        type=event_type_from_crossref(entry.get("type") or entry.get("label")),
        # Everything read from the Crossref API is reported as Crossref, the
        # source whose receipt covers it, even the entries Crossref takes from
        # Retraction Watch (those keep the Retraction Watch record id).
        source="crossref",
        work_doi=work_doi,
        work_arxiv_id=arxiv_id_from_doi(work_doi),
        notice_doi=notice_doi,
        notice_url=None,
        date=_crossref_date(entry.get("updated")) or fallback_date,
        reasons=(),
        source_record_id=str(record_id) if record_id not in (None, "") else None,
    )


def _unwrap(obj: Json) -> Json:
    """Return the `message` of an API envelope, or the object itself."""
    message = obj.get("message")
    return message if isinstance(message, Mapping) and "message-type" in obj else obj


def _items(listing: Json | Iterable[Json]) -> Iterable[Json]:
    if isinstance(listing, Mapping):
        items = _unwrap(listing).get("items")
        return [i for i in items if isinstance(i, Mapping)] if isinstance(items, list) else []
    return [i for i in listing if isinstance(i, Mapping)]


def _entries(obj: Json, key: str) -> list[Json]:
    value = obj.get(key)
    return [e for e in value if isinstance(e, Mapping)] if isinstance(value, list) else []


def _crossref_date(value: Any) -> date | None:
    """Return the day of a Crossref date object; a year or month alone is None."""
    if not isinstance(value, Mapping):
        return None
    parts = value.get("date-parts")
    try:
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and len(parts[0]) >= 3:
            return date(int(parts[0][0]), int(parts[0][1]), int(parts[0][2]))
    except (TypeError, ValueError):
        pass
    stamp = value.get("date-time")
    if isinstance(stamp, str):
        try:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00")).date()
        except ValueError:
            return None
    return None


def _item_date(item: Json) -> date | None:
    for key in ("published", "published-online", "published-print", "issued", "created"):
        if day := _crossref_date(item.get(key)):
            return day
    return None
