"""Ingestion state: one row per paper asked for, the harvest's progress, source bundles.

These rows are operational state (what was fetched, when, and why it failed), not curated data:
the paper and its observations they lead to are written by the curated services, with history.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class IngestionState(models.TextChoices):
    """Where a paper's ingestion stands; `failed` and `pdf_only` say why in `error`."""

    QUEUED = "queued", "queued"
    FETCHING = "fetching", "fetching"  # metadata and source
    RESOLVING = "resolving", "resolving"  # the references just imported
    DONE = "done", "done"
    PDF_ONLY = "pdf_only", "PDF only"  # no source bibliography: waits for GROBID
    FAILED = "failed", "failed"


# States a worker may still move on: a paper in one of these is not asked for again.
ACTIVE_STATES = (IngestionState.QUEUED, IngestionState.FETCHING, IngestionState.RESOLVING)


class PaperIngestion(models.Model):
    """A paper citerec builds from arXiv by itself: its state, source and last outcome."""

    paper = models.OneToOneField(
        "curation.Paper", on_delete=models.CASCADE, related_name="ingestion"
    )
    state = models.CharField(
        max_length=16, choices=IngestionState.choices, default=IngestionState.QUEUED
    )
    error = models.TextField(blank=True, default="", help_text="Why it failed, for people")
    version = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The arXiv version whose source was read"
    )
    source_sha256 = models.CharField(max_length=64, blank=True, default="")
    source_kind = models.CharField(max_length=16, blank=True, default="", help_text="tar, tex, pdf")
    method = models.CharField(
        max_length=32, blank=True, default="", help_text="Where the reference list was found"
    )
    main_tex = models.CharField(max_length=255, blank=True, default="")
    reference_count = models.PositiveIntegerField(null=True, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    resolution_run = models.ForeignKey(
        "resolution.ResolutionRun", on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )  # fmt: skip
    attempts = models.PositiveIntegerField(default=0)
    interrupted = models.PositiveSmallIntegerField(
        default=0,
        help_text="Attempts in a row that never ended (worker killed, past its time limit)",
    )
    requested_by = models.CharField(max_length=150, blank=True, default="")
    requested_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-requested_at", "pk"]
        indexes = [
            models.Index(fields=["state", "requested_at"], name="ingestion_state"),
            models.Index(
                fields=["requested_at"], name="ingestion_waiting",
                condition=Q(state__in=["queued", "fetching", "resolving"]),
            ),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.paper} {self.state}"


class HarvestState(models.Model):
    """How far the OAI-PMH harvest of one set has come, so a restart goes on where it stopped."""

    set_spec = models.CharField(
        max_length=64, unique=True, blank=True, default="", help_text="'' is all of arXiv"
    )
    last_datestamp = models.DateField(
        null=True, blank=True, help_text="Latest datestamp of a completed harvest"
    )
    running_from = models.DateField(null=True, blank=True, help_text="The unfinished harvest's from")
    resumption_token = models.TextField(blank=True, default="")
    cursor = models.PositiveIntegerField(default=0)
    complete_list_size = models.PositiveIntegerField(null=True, blank=True)
    harvested = models.PositiveBigIntegerField(default=0)
    deleted = models.PositiveBigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"harvest {self.set_spec or 'all'} up to {self.last_datestamp or 'never'}"


class SourceBundle(models.Model):
    """A local arXiv source bundle tar being ingested: its items, cut into chunks for workers."""

    path = models.TextField()
    file_key = models.CharField(max_length=255, unique=True, help_text="Name, size and mtime")
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"bundle {self.path}"


class SourceBundleChunk(models.Model):
    """A few dozen papers of a bundle, processed by one job, once (done_at set with its work)."""

    bundle = models.ForeignKey(SourceBundle, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    items = models.JSONField(help_text="[[arxiv_id, member, offset, size, kind], ...]")
    done_at = models.DateTimeField(null=True, blank=True)
    outcome = models.JSONField(default=dict, blank=True)
    interrupted = models.PositiveSmallIntegerField(
        default=0, help_text="Takes since it was last done: workers killed while on it"
    )
    reading = models.PositiveSmallIntegerField(
        null=True, blank=True,
        help_text="Read one paper at a time: the item being read (still set: it killed its worker)",
    )  # fmt: skip
    next_item = models.PositiveSmallIntegerField(
        default=0, help_text="Read one paper at a time: the first item not read yet"
    )

    class Meta:
        ordering = ["bundle_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["bundle", "number"], name="bundle_chunk_number")
        ]

    def __str__(self) -> str:
        return f"{self.bundle_id}/{self.number}"
