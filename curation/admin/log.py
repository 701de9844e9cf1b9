"""The global change log: every change to curated data, newest first, filterable by user, date,
model, source and action; keyset pages, never a count.

A row is one change to one thing (log_rows.py): a curator's decision is one row."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from typing import Any

from django import forms
from django.db.models import Q
from django.utils import timezone

from curation.history import event_model
from curation.selectors import history_batch, recent_context_ids
from curation.states import ChangeSource

from .log_rows import MODELS, LogEntry, LogRow, describe, folded

PAGE_SIZE = 50
ACTIONS = ("insert", "update", "delete")


class LogFilterForm(forms.Form):
    """What the log is narrowed to."""

    user = forms.CharField(
        required=False,
        label="User or task",
        widget=forms.TextInput(attrs={"placeholder": "alice, or task:…"}),
    )
    source = forms.ChoiceField(required=False, choices=[("", "any source"), *ChangeSource.choices])
    model = forms.ChoiceField(
        required=False, choices=[("", "any model"), *[(k, v) for k, v in MODELS.items()]]
    )
    action = forms.ChoiceField(
        required=False, choices=[("", "any action"), *[(a, a) for a in ACTIONS]]
    )
    since = forms.DateField(
        required=False, label="From", widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        required=False, label="To", widget=forms.DateInput(attrs={"type": "date"})
    )


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min), timezone.get_default_timezone())


def _conditions(data: dict[str, Any]) -> Q:
    condition = Q()
    if data.get("user"):
        # A login as the log shows people ("alice"), or an actor as history records it.
        actor = data["user"].strip()
        condition &= Q(pgh_context__metadata__actor=actor if ":" in actor else f"user:{actor}")
    if data.get("source"):
        condition &= Q(pgh_context__metadata__source=data["source"])
    if data.get("action"):
        condition &= Q(pgh_label=data["action"])
    if data.get("since"):
        condition &= Q(pgh_created_at__gte=_day_start(data["since"]))
    if data.get("until"):
        condition &= Q(pgh_created_at__lt=_day_start(data["until"]) + timedelta(days=1))
    return condition


def parse_cursor(raw: str) -> dict[str, int]:
    """Return the last event id seen per model ("observation:123,resolution:45")."""
    cursor: dict[str, int] = {}
    for part in raw.split(","):
        name, _, value = part.partition(":")
        if name in MODELS and value.isdigit():
            cursor[name] = int(value)
    return cursor


class _Stream:
    """One model's matching events, newest first, read in batches on one index range."""

    def __init__(self, name: str, condition: Q, before: int | None) -> None:
        self.name, self.condition, self.before = name, condition, before
        self.model = event_model(MODELS[name])
        self.buffer: list[LogEntry] = []
        self.done = False

    def head(self) -> LogEntry | None:
        """Return the newest event not taken yet, reading the next batch when needed."""
        if not self.buffer and not self.done:
            rows = history_batch(
                MODELS[self.name], self.condition, before=self.before, limit=PAGE_SIZE + 1
            )
            self.done = len(rows) <= PAGE_SIZE
            self.buffer = [LogEntry(self.name, row) for row in rows]
            if rows:
                self.before = rows[-1].pgh_id
        return self.buffer[0] if self.buffer else None

    def take(self) -> LogEntry:
        """Return the head and move past it."""
        return self.buffer.pop(0)


def _merged(streams: list[_Stream]) -> Iterator[LogEntry]:
    """Yield the events of every stream, newest first (a k-way merge of their heads)."""
    while True:
        heads = [(e.at, e.event.pgh_id, i) for i, s in enumerate(streams) if (e := s.head())]
        if not heads:
            return
        yield streams[max(heads)[2]].take()


def log_page(data: dict[str, Any], cursor: dict[str, int]) -> tuple[list[LogRow], str | None]:
    """Return one page of the log, a row per change to one thing, and the next page's cursor.

    Each model's events are read newest first by primary key (one index range each) and
    merged by time; the cursor keeps where each model's stream stopped. One transaction's
    events share its time, so a page ends between two times: a row is never cut in two (a page
    holding the end of a large resolver run can be longer than PAGE_SIZE rows).
    """
    names = [data["model"]] if data.get("model") else list(MODELS)
    rows, following = _page(names, _conditions(data), cursor, PAGE_SIZE)
    describe(rows)
    return rows, following


def recent_decisions(limit: int = 10) -> list[LogRow]:
    """Return the latest changes people made (admin or API), a row per reference changed."""
    contexts = recent_context_ids([ChangeSource.ADMIN, ChangeSource.API], limit)
    if not contexts:
        return []
    rows = _page(list(MODELS), Q(pgh_context_id__in=contexts), {}, limit)[0][:limit]
    describe(rows)
    return rows


def _page(
    names: list[str], condition: Q, cursor: dict[str, int], size: int
) -> tuple[list[LogRow], str | None]:
    """Return at least `size` rows (all of the last transaction's) and the cursor after them."""
    streams = [_Stream(name, condition, cursor.get(name)) for name in names]
    rows: dict[tuple[str, str, str], LogRow] = {}
    following = dict(cursor)
    merged = _merged(streams)
    last_at: datetime | None = None
    for entry in merged:
        if len(rows) >= size and entry.at != last_at:
            # Put it back: it starts the next page.
            streams[names.index(entry.model)].buffer.insert(0, entry)
            break
        last_at = entry.at
        kind, obj_id = entry.subject
        context = str(entry.event.pgh_context_id or f"{entry.model}:{entry.event.pgh_id}")
        row = rows.get((context, kind, obj_id))
        if row is None:
            row = rows[(context, kind, obj_id)] = LogRow(entry.at, entry.metadata, kind, obj_id)
        row.entries.append(entry)
        following[entry.model] = entry.event.pgh_id
    more = any(s.head() is not None for s in streams)
    after = ",".join(f"{k}:{v}" for k, v in sorted(following.items()))
    return folded(list(rows.values())), after if more else None
