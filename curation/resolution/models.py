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


class LabelOutcome(models.TextChoices):
    """What a curator made of a resolver verdict they decided on."""

    CONFIRMED = "confirmed", "confirmed"
    RELINKED = "relinked", "overturned: linked to another work"
    UNLINKED = "unlinked", "overturned: unlinked"
    NO_MATCH = "no_match", "overturned: no canonical record"


class LabelWhy(models.TextChoices):
    """How the verdict came before a curator: drawn in a sample, or on its own (the queue)."""

    SAMPLED = "sampled", "checked because sampled"
    QUEUE = "queue", "came to curators"


class LinkSample(models.Model):
    """A stratified sample of automatic links drawn for checking, with each band's size then.

    The band sizes are what the stratified estimate weights the bands by; the seed makes the
    draw reproducible (the same links for the same seed and the same links in the database).
    """

    drawn_at = models.DateTimeField()
    seed = models.CharField(max_length=64)
    per_band = models.PositiveIntegerField()
    strata = models.JSONField(help_text="Automatic links per band when drawn: {band: count}")
    actor = models.CharField(max_length=128)
    reason = models.TextField()

    class Meta:
        ordering = ["-drawn_at", "-pk"]

    def __str__(self) -> str:
        return f"sample {self.pk} ({self.seed})"


class LinkSampleItem(models.Model):
    """One automatic link of a sample: what the resolver said, and whether it was checked."""

    sample = models.ForeignKey(LinkSample, on_delete=models.CASCADE, related_name="items")
    observation = models.ForeignKey(
        Observation, on_delete=models.CASCADE, related_name="sample_items"
    )
    band = models.CharField(max_length=64)
    step = models.CharField(max_length=32, blank=True, default="")
    status = models.CharField(max_length=32, choices=ResolutionStatus.choices)
    probability = models.FloatField(null=True, blank=True)
    linked = models.CharField(max_length=300, blank=True, default="", help_text="arXiv id or DOI")
    position = models.PositiveIntegerField(help_text="Order of the walk: by band, then drawn order")
    checked_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=LabelOutcome.choices, blank=True, default="")

    class Meta:
        verbose_name = "link to check"
        verbose_name_plural = "links to check"
        ordering = ["sample_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["sample", "observation"], name="sample_item_unique")
        ]
        indexes = [
            # The "check these links" queue: the unchecked items, in walk order.
            models.Index(
                fields=["sample", "position"], name="sample_item_open",
                condition=Q(checked_at__isnull=True),
            ),
            models.Index(
                fields=["observation"], name="sample_item_open_obs",
                condition=Q(checked_at__isnull=True),
            ),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.observation_id} ({self.band})"


class VerdictLabel(models.Model):
    """A curator's decision on a resolver verdict: the verdict as they saw it, and the outcome.

    Written by the decision services (curation.resolution.services.labels) in the decision's
    transaction; read as counts by curation.resolution.selectors.resolver_precision and as
    training data by `bench/calibrate.py --from-labels` (`features`).
    """

    observation = models.ForeignKey(
        Observation, on_delete=models.CASCADE, related_name="verdict_labels"
    )
    step = models.CharField(max_length=32, blank=True, default="")
    status = models.CharField(max_length=32, choices=ResolutionStatus.choices)
    resolver_source = models.CharField(max_length=32, null=True, blank=True)
    resolver_version = models.CharField(max_length=32, blank=True, default="")
    probability = models.FloatField(null=True, blank=True)
    band = models.CharField(max_length=64)
    linked = models.CharField(max_length=300, blank=True, default="", help_text="arXiv id or DOI")
    features = models.JSONField(
        null=True, blank=True, help_text="calibration.features of the link (step string only)"
    )
    outcome = models.CharField(max_length=16, choices=LabelOutcome.choices)
    why = models.CharField(max_length=16, choices=LabelWhy.choices)
    sample_item = models.ForeignKey(
        LinkSampleItem, on_delete=models.SET_NULL, null=True, blank=True, related_name="labels"
    )
    action = models.CharField(max_length=32)
    actor = models.CharField(max_length=128)
    decided_at = models.DateTimeField()
    revision = models.PositiveIntegerField(help_text="The observation's revision the decision made")
    backfilled_from = models.BigIntegerField(
        null=True, blank=True, unique=True,
        help_text="The decision's resolution history event, for a label made from history",
    )  # fmt: skip

    class Meta:
        ordering = ["-decided_at", "-pk"]
        indexes = [
            models.Index(fields=["why", "step", "status"], name="label_step_state"),
            models.Index(fields=["why", "band"], name="label_band"),
        ]

    def __str__(self) -> str:
        return f"{self.observation_id}: {self.outcome} ({self.band})"
