"""Resolution models: the local DOI catalogue, resolver runs, verdicts kept for curators."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector
from django.db import models
from django.db.models import Q

from curation.models import Observation
from curation.states import ResolutionStatus, ResolverSource


class CrossrefWork(models.Model):
    """A work of the local Crossref catalogue (reference data, not curated: no history)."""

    doi = models.CharField(max_length=255, unique=True, help_text="Lower-cased")
    title = models.TextField(blank=True, default="")
    title_norm = models.TextField(blank=True, default="")
    title_key = models.CharField(max_length=255, blank=True, default="")
    container_title = models.TextField(blank=True, default="")
    first_author = models.CharField(max_length=128, blank=True, default="")
    authors = models.TextField(blank=True, default="")
    year = models.SmallIntegerField(null=True, blank=True)
    type = models.CharField(max_length=64, blank=True, default="")
    updated_by = models.JSONField(default=list, blank=True, help_text="Crossref `updated-by`")
    update_to = models.JSONField(default=list, blank=True, help_text="Crossref `update-to`")
    raw = models.JSONField(null=True, blank=True)
    imported_at = models.DateTimeField(auto_now=True)
    # Where it was published (curation.resolution.venues): journal keys, volume, first page,
    # issue.
    venue_key = models.CharField(max_length=128, blank=True, default="")
    short_venue_key = models.CharField(max_length=128, blank=True, default="")
    volume = models.CharField(max_length=32, blank=True, default="")
    first_page = models.CharField(max_length=32, blank=True, default="")
    issue = models.CharField(max_length=32, blank=True, default="", help_text="As Crossref gives it")
    # The arXiv versions Crossref's `relation` names (curation.catalogue.versions):
    # "arxiv:<id>" for a published work's has-preprint, "doi:<doi>" for what an arXiv DOI's
    # work is-preprint-of. Empty for nearly every work.
    arxiv_versions = ArrayField(
        models.CharField(max_length=300), default=list, blank=True,
        help_text="arXiv versions from Crossref `relation` (has-preprint / is-preprint-of)",
    )  # fmt: skip

    class Meta:
        indexes = [
            models.Index(fields=["title_key"], name="crossref_title_key"),
            # Only the few works that name a version are indexed, straight into the index
            # (no pending list for the bulk imports to grow): queries add `arxiv_versions <> '{}'`.
            GinIndex(
                fields=["arxiv_versions"],
                name="crossref_arxiv_versions",
                fastupdate=False,
                condition=~Q(arxiv_versions=[]),
            ),
            GinIndex(SearchVector("title_norm", config="simple"), name="crossref_title_fts"),
            models.Index(
                fields=["volume", "first_page"], name="crossref_locator", condition=~Q(volume="")
            ),
        ]

    def __str__(self) -> str:
        return f"doi:{self.doi}"


class PaperLocator(models.Model):
    """Where an arXiv paper was published, parsed from its journal-ref at catalogue import."""

    paper = models.OneToOneField(
        "curation.Paper", on_delete=models.CASCADE, primary_key=True, related_name="locator"
    )
    venue_key = models.CharField(max_length=128)
    volume = models.CharField(max_length=32)
    first_page = models.CharField(max_length=32)
    year = models.SmallIntegerField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["volume", "first_page"], name="paper_locator")]

    def __str__(self) -> str:
        return f"{self.venue_key} {self.volume}, {self.first_page}"


class TitleWord(models.Model):
    """How many catalogue titles hold a word: searches use the rarest words of a title."""

    word = models.CharField(max_length=64, primary_key=True)
    titles = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"{self.word}: {self.titles}"


class RunStatus(models.TextChoices):
    """The life of a resolver run."""

    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    DONE = "done", "done"
    FAILED = "failed", "failed"


class ResolutionRun(models.Model):
    """A batch of resolutions, split in chunks; its progress is what the admin shows."""

    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    selection = models.JSONField(default=dict, help_text="What was asked: paper, state, all")
    reason = models.TextField()
    actor = models.CharField(max_length=128)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="The first errors, per item")
    dispatched_at = models.DateTimeField(
        null=True, blank=True, help_text="When its unfinished chunks were last queued"
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"run {self.pk}: {self.done}/{self.total} ({self.status})"

    @property
    def progress(self) -> float:
        """Return the share of observations done, 0 to 1."""
        return self.done / self.total if self.total else 1.0


class ResolutionChunk(models.Model):
    """A slice of a run: done once, so a re-delivered job counts nothing twice."""

    run = models.ForeignKey(ResolutionRun, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    observation_ids = models.JSONField()
    done_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(
        null=True, blank=True, help_text="When a worker last took it (its lease)"
    )
    attempts = models.PositiveIntegerField(default=0, help_text="How many times a worker took it")
    interrupted = models.PositiveSmallIntegerField(
        default=0, help_text="Takes since one last ended (done, retried, failed): killed workers"
    )
    last_error = models.TextField(blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "number"], name="resolution_chunk_unique")
        ]
        # Resume and the stale-run sweep read only a run's unfinished chunks.
        indexes = [
            models.Index(fields=["run"], condition=Q(done_at__isnull=True), name="chunk_unfinished")
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} chunk {self.number}"


class PinnedDisagreement(models.Model):
    """A verdict the resolver reached for a pinned observation that differs from the curator's."""

    observation = models.OneToOneField(
        Observation, on_delete=models.CASCADE, related_name="resolver_disagreement"
    )
    status = models.CharField(max_length=32, choices=ResolutionStatus.choices)
    resolver_source = models.CharField(max_length=32, choices=ResolverSource.choices, null=True)
    arxiv_id = models.CharField(max_length=64, null=True, blank=True)
    doi = models.CharField(max_length=255, null=True, blank=True)
    evidence = models.JSONField(default=dict)
    resolver_version = models.CharField(max_length=32)
    found_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.observation_id}: resolver says {self.status}"


class ImportCheckpoint(models.Model):
    """How far a catalogue import got in a file, so a stopped import resumes there."""

    kind = models.CharField(max_length=32)
    file_key = models.CharField(max_length=512, help_text="Path, size and modification time")
    line = models.PositiveBigIntegerField(default=0)
    byte_offset = models.PositiveBigIntegerField(default=0)
    imported = models.PositiveBigIntegerField(default=0)
    bad_lines = models.PositiveBigIntegerField(default=0)
    finished = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "file_key"], name="import_checkpoint_unique")
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.file_key} @ line {self.line}"
