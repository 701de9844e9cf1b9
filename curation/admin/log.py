"""The global change log: every history event of the curated models, newest first,
filterable by user, date, model, source and action; keyset pages, never a count."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django import forms
from django.db.models import Q
from django.utils import timezone

from curation.history import event_model
from curation.states import ChangeSource

PAGE_SIZE = 50
MODELS = {
    "observation": "Observation",
    "resolution": "Resolution",
    "standingnotice": "StandingNotice",
    "citedwork": "CitedWork",
    "paper": "Paper",
    "measurement": "ExternalCitationMeasurement",
    "standingsource": "StandingSource",
}
ACTIONS = ("insert", "update", "delete")


class LogFilterForm(forms.Form):
    """What the log is narrowed to."""

    user = forms.CharField(
        required=False,
        label="User or task",
        widget=forms.TextInput(attrs={"placeholder": "user:alice"}),
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


@dataclass
class LogEntry:
    """One history event, as a log line."""

    model: str
    event: Any

    @property
    def metadata(self) -> dict[str, Any]:
        """Return the event's context: actor, source, reason, task id."""
        context = self.event.pgh_context
        return context.metadata if context else {}

    @property
    def at(self) -> datetime:
        """Return when the event was written."""
        return self.event.pgh_created_at  # type: ignore[no-any-return]


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min), timezone.get_default_timezone())


def _conditions(data: dict[str, Any]) -> Q:
    condition = Q()
    if data.get("user"):
        condition &= Q(pgh_context__metadata__actor=data["user"].strip())
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


def log_page(data: dict[str, Any], cursor: dict[str, int]) -> tuple[list[LogEntry], str | None]:
    """Return one page of the log and the cursor of the next page (None on the last).

    Each model's events are read newest first by primary key (one index range each) and
    merged by time; the cursor keeps where each model's stream stopped.
    """
    names = [data["model"]] if data.get("model") else list(MODELS)
    condition = _conditions(data)
    streams: dict[str, list[LogEntry]] = {}
    for name in names:
        queryset = event_model(MODELS[name]).objects.filter(condition).select_related("pgh_context")
        if name in cursor:
            queryset = queryset.filter(pgh_id__lt=cursor[name])
        rows = queryset.order_by("-pgh_id")[: PAGE_SIZE + 1]
        streams[name] = [LogEntry(name, row) for row in rows]
    page: list[LogEntry] = []
    following = dict(cursor)
    while len(page) < PAGE_SIZE:
        # A k-way merge of the streams' heads keeps each stream's order, so the cursor
        # (the last id taken per model) never skips an event.
        heads = [(s[0].at, s[0].event.pgh_id, n) for n, s in streams.items() if s]
        if not heads:
            return page, None
        name = max(heads)[2]
        entry = streams[name].pop(0)
        page.append(entry)
        following[name] = entry.event.pgh_id
    if not any(streams.values()):
        return page, None
    return page, ",".join(f"{k}:{v}" for k, v in sorted(following.items()))
