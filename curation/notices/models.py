"""Notice models: events per canonical work, receipts, staff reviews, the Retraction Watch copy.

Where Retraction Watch rows live (issue 6): every row of the CSV is kept in
RetractionWatchRecord, keyed by its canonical original DOI, and no CitedWork is created for it.
CitedWork stays "a work somebody cites"; a NoticeEvent is made for a cited work when its notices
are refreshed, which also finds the rows of a DOI first cited long after the import.
"""

from __future__ import annotations

from typing import Any

import pghistory
from django.conf import settings
from django.db import models

from curation.history import tracked
from curation.models import CitedWork
from curation.notice_events import EventType, event_v1

from .parsers.retraction_watch import paper_keys

EVENT_TYPE_CHOICES = [(t.value, t.value.replace("_", " ")) for t in EventType]

# A refresh touches `last_seen_at` of every event it sees again; that is not a change worth a
# history row (a daily import would otherwise write 70,000 of them).
_QUIET_FIELDS = ["last_seen_at"]


def _tracked_quietly(name: str, *, inserts: bool = True) -> Any:
    quiet_update = pghistory.UpdateEvent(condition=pghistory.AnyChange(exclude=_QUIET_FIELDS))
    trackers = [pghistory.InsertEvent()] if inserts else []
    return tracked(name, *trackers, quiet_update, pghistory.DeleteEvent())


class NoticeSource(models.TextChoices):
    """The named sources of standing notices (v1 `source` of events and receipts)."""

    ARXIV = "arxiv", "arXiv"
    CROSSREF = "crossref", "Crossref"
    RETRACTION_WATCH = "retraction_watch", "Retraction Watch"


class ReceiptOutcome(models.TextChoices):
    """What came of one query of a source; only `answered` counts in a record."""

    ANSWERED = "answered", "answered"
    NOT_FOUND = "not_found", "source does not know the work"
    FAILED = "failed", "failed"
    OFFLINE = "offline", "not asked (offline mode)"


class ReviewStatus(models.TextChoices):
    """Where an event stands in the staff review."""

    NEW = "new", "new"
    CONFIRMED = "confirmed", "confirmed"
    DISMISSED = "dismissed", "dismissed as a false match"


@_tracked_quietly("noticeevent")
class NoticeEvent(models.Model):
    """One notice a named source reports about a cited canonical work."""

    work = models.ForeignKey(CitedWork, on_delete=models.PROTECT, related_name="notice_events")
    source = models.CharField(max_length=32, choices=NoticeSource.choices)
    identity = models.CharField(
        max_length=512, help_text="The notice within (work, source): record id or notice DOI"
    )
    type = models.CharField(max_length=32, choices=EVENT_TYPE_CHOICES)
    severity = models.PositiveSmallIntegerField(help_text="0 is the most severe")
    work_doi = models.CharField(
        max_length=255, null=True, blank=True, help_text="The DOI the source named"
    )
    notice_doi = models.CharField(max_length=255, null=True, blank=True)
    notice_url = models.CharField(max_length=1000, null=True, blank=True)
    date = models.DateField(null=True, blank=True)
    reasons = models.JSONField(default=list, blank=True)
    source_record_id = models.CharField(max_length=128, null=True, blank=True)
    first_seen_at = models.DateTimeField()
    last_seen_at = models.DateTimeField()
    still_reported = models.BooleanField(
        default=True, help_text="False once the source answers without it"
    )
    superseded = models.BooleanField(
        default=False, help_text="A later notice about the paper replaced its state"
    )
    dismissed = models.BooleanField(
        default=False, help_text="Dismissed by staff as a false match: left out of records"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["work", "source", "identity"], name="noticeevent_identity"
            )
        ]

    def __str__(self) -> str:
        return f"{self.type} of {self.work_id} ({self.source})"

    @property
    def event_type(self) -> EventType:
        """Return the type as the shared vocabulary's enum."""
        return EventType(self.type)

    def to_v1(self) -> dict[str, Any]:
        """Return the event as a v1 event dict."""
        return event_v1(self)


@tracked("sourcereceipt", pghistory.UpdateEvent(), pghistory.DeleteEvent())
class SourceReceipt(models.Model):
    """One query of one source about one work: when, what was asked, and what came of it."""

    # Receipts are an append-only log themselves: only a change to one is a history event.
    work = models.ForeignKey(CitedWork, on_delete=models.CASCADE, related_name="notice_receipts")
    source = models.CharField(max_length=32, choices=NoticeSource.choices)
    observed_at = models.DateTimeField()
    outcome = models.CharField(max_length=16, choices=ReceiptOutcome.choices)
    query = models.CharField(max_length=512, blank=True, default="")
    events_found = models.PositiveIntegerField(default=0)
    detail = models.TextField(blank=True, default="")

    class Meta:
        indexes = [
            models.Index(
                fields=["work", "source", "-observed_at"], name="receipt_work_source_time"
            ),
            models.Index(fields=["observed_at"], name="receipt_observed_at"),
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.outcome} at {self.observed_at:%Y-%m-%d %H:%M}"

    @property
    def answered(self) -> bool:
        """Return whether the source answered (only such receipts reach a record)."""
        return self.outcome == ReceiptOutcome.ANSWERED


@tracked("noticereview")
class NoticeReview(models.Model):
    """Staff review of one event: new until confirmed or dismissed; a changed event reopens."""

    event = models.OneToOneField(NoticeEvent, on_delete=models.CASCADE, related_name="review")
    status = models.CharField(max_length=16, choices=ReviewStatus.choices, default=ReviewStatus.NEW)
    severity = models.PositiveSmallIntegerField(help_text="The event's, kept here for the queue")
    opened_at = models.DateTimeField()
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    note = models.TextField(blank=True, default="")
    decided_at = models.DateTimeField(null=True, blank=True)
    revision = models.PositiveIntegerField(
        default=1, help_text="Bumped on every change: a decision names the revision it was made on"
    )

    class Meta:
        ordering = ["severity", "-opened_at"]
        indexes = [
            # The queue: new reviews, most severe first, newest first.
            models.Index(fields=["status", "severity", "-opened_at"], name="review_queue"),
        ]

    def __str__(self) -> str:
        return f"review of {self.event_id}: {self.status}"


# Like catalogue papers, imported rows are reference data: their first insert is recorded by the
# import run (RetractionWatchImport), and only later changes and deletions are history events.
@_tracked_quietly("rwrecord", inserts=False)
class RetractionWatchRecord(models.Model):
    """One row of the Retraction Watch database, as last imported (idempotent by Record ID)."""

    record_id = models.PositiveIntegerField(primary_key=True)
    original_doi = models.CharField(max_length=255, null=True, blank=True, db_index=True)
    original_pubmed_id = models.PositiveIntegerField(null=True, blank=True)
    notice_doi = models.CharField(max_length=255, null=True, blank=True)
    notice_pubmed_id = models.PositiveIntegerField(null=True, blank=True)
    nature = models.CharField(max_length=32, choices=EVENT_TYPE_CHOICES)
    raw_nature = models.CharField(max_length=128, blank=True, default="")
    retraction_date = models.DateField(null=True, blank=True)
    original_date = models.DateField(null=True, blank=True)
    reasons = models.JSONField(default=list, blank=True)
    title = models.TextField(blank=True, default="")
    journal = models.TextField(blank=True, default="")
    publisher = models.TextField(blank=True, default="")
    superseded = models.BooleanField(default=False)
    first_seen_at = models.DateTimeField()
    last_seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"Retraction Watch {self.record_id}"

    @property
    def event_type(self) -> EventType:
        """Return the nature as the shared vocabulary's enum."""
        return EventType(self.nature)

    @property
    def paper_keys(self) -> tuple[str, ...]:
        """Return the identifiers of the original paper, as the CSV reader names them."""
        return paper_keys(self.original_doi, self.original_pubmed_id)


@tracked("rwimport")
class RetractionWatchImport(models.Model):
    """One run of import_retraction_watch: what it read and what it changed."""

    file_name = models.CharField(max_length=1000)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    rows_read = models.PositiveIntegerField(default=0)
    created = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    error_count = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="The first errors, by line")

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.file_name} at {self.started_at:%Y-%m-%d %H:%M}"
