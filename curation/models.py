"""The citation-record data model (SPEC §1), with history tracked by database triggers.

Every tracked model's event table is append-only (PGHISTORY_APPEND_ONLY) and refuses an event
without a history context (the `*_has_context` check constraints): a write that bypasses the
services in curation/services/ fails instead of leaving an anonymous change behind.
"""

from __future__ import annotations

import uuid
from typing import Any

import pghistory
from django.contrib.postgres.indexes import GinIndex, HashIndex
from django.contrib.postgres.search import SearchVector
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import MD5

from .history import tracked as _tracked
from .search import ObservationSearchDocument
from .states import NoticeReason, NoticeState, Origin, ResolutionStatus, ResolverSource


# Catalogue inserts (millions of rows from the arXiv snapshot) are reference data, not curated
# data: only updates and deletes of papers are history events.
@_tracked("paper", pghistory.UpdateEvent(), pghistory.DeleteEvent())
class Paper(models.Model):
    """An arXiv paper known to the database: from the catalogue or from a record."""

    arxiv_id = models.CharField(max_length=64, unique=True)
    title = models.TextField(blank=True, default="")
    authors = models.TextField(blank=True, default="")
    doi = models.CharField(max_length=255, blank=True, default="", help_text="Published DOI")
    categories = models.CharField(max_length=255, blank=True, default="")
    primary_category = models.CharField(max_length=64, null=True, blank=True)
    latest_version = models.PositiveSmallIntegerField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    last_updated = models.DateTimeField(null=True, blank=True)
    snapshot_observed_at = models.DateTimeField(null=True, blank=True)
    journal_ref = models.TextField(blank=True, default="")
    comments = models.TextField(blank=True, default="")
    in_catalogue = models.BooleanField(default=False, help_text="Present in the arXiv snapshot")
    # Catalogue fields for resolution (filled by import_arxiv_snapshot and the record import).
    first_author = models.CharField(
        max_length=128, blank=True, default="", help_text="First author's surname, folded"
    )
    year = models.SmallIntegerField(null=True, blank=True, help_text="Year of the first version")
    title_norm = models.TextField(blank=True, default="", help_text="normalize_title(title)")
    title_key = models.CharField(
        max_length=255, blank=True, default="", help_text="Title without spaces, for exact lookups"
    )
    withdrawn = models.BooleanField(default=False)

    class Meta:
        ordering = ["arxiv_id"]
        indexes = [
            models.Index(fields=["title_key"], name="paper_title_key"),
            models.Index(fields=["doi"], name="paper_doi", condition=~Q(doi="")),
            # Full-text search on the folded title: core PostgreSQL, so it works on the
            # embedded server too (no pg_trgm there).
            GinIndex(SearchVector("title_norm", config="simple"), name="paper_title_fts"),
        ]

    def __str__(self) -> str:
        return f"arXiv:{self.arxiv_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, keeping the title's matching forms in step with the title."""
        from curation.references import compact_title, normalize_title

        self.title_norm = normalize_title(self.title)
        self.title_key = compact_title(self.title)[:255]
        if self.year is None and self.submitted_at is not None:
            self.year = self.submitted_at.year
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and {"title", "submitted_at"} & set(update_fields):
            kwargs["update_fields"] = {*update_fields, "title_norm", "title_key", "year"}
        super().save(*args, **kwargs)


@_tracked("citedwork")
class CitedWork(models.Model):
    """A canonical cited work (a DOI or an arXiv id): what notices and receipts attach to."""

    doi = models.CharField(max_length=255, null=True, blank=True, unique=True)
    arxiv_id = models.CharField(max_length=64, null=True, blank=True, unique=True)
    title = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(doi__isnull=False) | Q(arxiv_id__isnull=False),
                name="citedwork_has_canonical_id",
            )
        ]

    def __str__(self) -> str:
        return f"doi:{self.doi}" if self.doi else f"arXiv:{self.arxiv_id}"


@_tracked("observation")
class Observation(models.Model):
    """One reference made by a citing paper, with the work it describes (v1 `outbound[i]`).

    Identity (SPEC §6) is (paper, source, normalized_text, occurrence) for references read from
    a reference list; imported observations carry no raw text and are identified by their id.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # No index of their own on the two paper keys: obs_paper_refindex / obs_paper_changed and
    # obs_cited_changed lead with them and serve every lookup by paper. Every resolver write
    # of an observation is a new tuple in every index (it changes indexed columns, so it is
    # never a HOT update): each index less is one insert less per observation written.
    paper = models.ForeignKey(
        Paper, on_delete=models.PROTECT, related_name="outbound", db_index=False
    )
    source = models.CharField(max_length=64)
    reference_index = models.IntegerField()
    source_observed_at = models.DateTimeField()
    raw_text = models.TextField(null=True, blank=True)
    normalized_text = models.TextField(blank=True, default="")
    occurrence = models.PositiveIntegerField(default=1)

    cited_paper = models.ForeignKey(
        Paper,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="cited_by",
        db_index=False,
    )
    cited_work = models.ForeignKey(
        CitedWork, on_delete=models.SET_NULL, null=True, blank=True, related_name="observations"
    )

    # The work as the reference describes it (v1 `citation.cited_work`; null when not described).
    work_described = models.BooleanField(default=True)
    work_id = models.UUIDField(null=True, blank=True)
    work_title = models.TextField(null=True, blank=True)
    work_year = models.IntegerField(null=True, blank=True)
    work_venue = models.TextField(null=True, blank=True)
    work_doi = models.CharField(max_length=255, null=True, blank=True)
    work_arxiv_id = models.CharField(max_length=64, null=True, blank=True)
    work_pith_arxiv_id = models.CharField(max_length=64, null=True, blank=True)
    work_metadata_source = models.CharField(max_length=64, null=True, blank=True)
    work_snapshot_observed_at = models.DateTimeField(null=True, blank=True)
    # What the imported record said (its cited_work), kept apart from citerec's own link, which
    # overwrites work_doi / work_pith_arxiv_id: re-resolution reads these, never the link.
    imported_doi = models.CharField(max_length=255, null=True, blank=True)
    imported_pith_arxiv_id = models.CharField(max_length=64, null=True, blank=True)

    pinned = models.BooleanField(
        default=False, help_text="A curator decided; resolver runs leave it"
    )
    no_canonical_record = models.BooleanField(default=False)
    retired_at = models.DateTimeField(null=True, blank=True)
    revision = models.PositiveIntegerField(
        default=1, help_text="Bumped on every change (no lost updates)"
    )
    changed_at = models.DateTimeField(help_text="Last substantive change (API changed_since)")

    class Meta:
        ordering = ["paper_id", "reference_index", "id"]
        indexes = [
            models.Index(fields=["paper", "reference_index"], name="obs_paper_refindex"),
            models.Index(fields=["changed_at"], name="obs_changed_at"),
            # Version stamps of records (API caching) read these index-only.
            models.Index(fields=["paper", "changed_at"], name="obs_paper_changed"),
            models.Index(fields=["cited_paper", "changed_at"], name="obs_cited_changed"),
            # Curator work queues and lookups (admin), fast on millions of observations.
            models.Index(
                fields=["paper", "reference_index", "id"],
                name="obs_queue_live",
                condition=Q(retired_at__isnull=True, no_canonical_record=False),
            ),
            # The "to fix" queue: what no curator has decided (a decision pins).
            models.Index(
                fields=["paper", "reference_index", "id"],
                name="obs_queue_undecided",
                condition=Q(retired_at__isnull=True, no_canonical_record=False, pinned=False),
            ),
            models.Index(fields=["work_doi"], name="obs_work_doi", condition=Q(work_doi__isnull=False)),
            models.Index(
                fields=["work_arxiv_id"], name="obs_work_arxiv_id", condition=Q(work_arxiv_id__isnull=False)
            ),
            models.Index(
                fields=["work_pith_arxiv_id"],
                name="obs_work_pith_arxiv_id",
                condition=Q(work_pith_arxiv_id__isnull=False),
            ),
            HashIndex(fields=["normalized_text"], name="obs_normalized_text"),
            models.Index(fields=["pinned"], name="obs_pinned", condition=Q(pinned=True)),
            # Curators' search: words, hosts, path parts and identifiers (curation/search.py).
            GinIndex(ObservationSearchDocument(), name="obs_text_fts"),
        ]
        constraints = [
            # On a digest of the text, not the text: a B-tree entry holds at most 2,704 bytes,
            # and real references run longer (a collaboration's author list: 3,787 bytes).
            models.UniqueConstraint(
                F("paper"), F("source"), MD5("normalized_text"), F("occurrence"),
                condition=Q(raw_text__isnull=False),
                name="observation_identity",
            )  # fmt: skip
        ]

    def __str__(self) -> str:
        return f"{self.paper_id} ref {self.reference_index}"


class ObservationListing(models.Model):
    """What a reference list said of a reference beyond its text, kept at import (a reference
    read from a list has one; an imported record's observations have none).

    Beside the observation, not in it: an observation's row is rewritten, and copied into its
    history, at every resolution; this is written once per import, keeps no history of its own
    (the list it came from says it again) and is read only by the resolver and the API.
    """

    observation = models.OneToOneField(
        Observation, on_delete=models.CASCADE, primary_key=True, related_name="listing"
    )
    key = models.TextField(null=True, blank=True, help_text="The cite key in its source")
    # ListedReference.stored(): label, line, fields, the DOI and arXiv id the source states, URL,
    # problems.
    stated = models.JSONField(default=dict, blank=True)
    # The parse of the observation's raw text (references/stored.py), so it is parsed once.
    parse = models.JSONField(null=True, blank=True)

    def __str__(self) -> str:
        return f"listing of {self.observation_id}"


@_tracked("resolution")
class Resolution(models.Model):
    """The current resolution of an observation, with the evidence for it."""

    observation = models.OneToOneField(
        Observation, on_delete=models.CASCADE, primary_key=True, related_name="resolution"
    )
    status = models.CharField(max_length=32, choices=ResolutionStatus.choices)
    resolver_source = models.CharField(
        max_length=32, choices=ResolverSource.choices, null=True, blank=True
    )
    observed_at = models.DateTimeField()
    evidence = models.JSONField(default=dict, blank=True)
    origin = models.CharField(max_length=16, choices=Origin.choices)
    resolver_version = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        indexes = [
            models.Index(fields=["status"], name="resolution_status"),
            models.Index(fields=["resolver_source"], name="resolution_source"),
        ]

    def __str__(self) -> str:
        return f"{self.status} ({self.resolver_source or 'no resolver link'})"


@_tracked("standingnotice")
class StandingNotice(models.Model):
    """What named sources report about an observation's cited work (v1 `standing_notice`).

    `events` and `source_receipts` hold the v1 lists; imported notices are kept as they came
    until citerec refreshes them (SPEC §1 "Imported versus computed").
    """

    observation = models.OneToOneField(
        Observation, on_delete=models.CASCADE, primary_key=True, related_name="standing_notice"
    )
    state = models.CharField(max_length=16, choices=NoticeState.choices)
    reason = models.CharField(max_length=64, choices=NoticeReason.choices, null=True, blank=True)
    observation_text = models.TextField(null=True, blank=True)
    events = models.JSONField(default=list, blank=True)
    source_receipts = models.JSONField(default=list, blank=True)
    origin = models.CharField(max_length=16, choices=Origin.choices)
    refreshed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.state} {self.reason or ''}".strip()


@_tracked("measurement")
class ExternalCitationMeasurement(models.Model):
    """A dated citation count for a paper from one named source (never summed across sources)."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="measurements")
    position = models.PositiveIntegerField(default=0, help_text="Order within the record")
    source = models.CharField(max_length=64)
    observed_at = models.DateTimeField(null=True, blank=True)
    count = models.IntegerField(null=True, blank=True)
    document = models.JSONField(help_text="The v1 item, exactly as stored or built")

    class Meta:
        ordering = ["paper_id", "position"]

    def __str__(self) -> str:
        return f"{self.source}: {self.count}"


@_tracked("standingsource")
class StandingSource(models.Model):
    """A named source that can report notices about a work (Crossref, Retraction Watch, ...)."""

    name = models.CharField(max_length=64, unique=True)
    label = models.CharField(max_length=128)
    description = models.TextField(blank=True, default="")

    def __str__(self) -> str:
        return self.name


# --- groups: references citing the same thing across papers, decided once (issue 41) --------


class ReferenceGroup(models.Model):
    """References that cite the same thing across papers (curation/references/groups.py keys).

    A derived table, kept by the group services (curation/services/reference_groups.py): its
    counts are what the group queue sorts on, so "largest undecided groups first" is one index
    range (group_queue) instead of a count over millions of observations. Not history-tracked:
    what is curated here is the decision (GroupDecision) and the members' own histories.
    """

    key = models.CharField(max_length=255, unique=True)
    kind = models.CharField(max_length=16)
    label = models.TextField(help_text="A member's reference text, as the queue shows the group")
    size = models.PositiveIntegerField(default=0, help_text="Live members")
    undecided = models.PositiveIntegerField(
        default=0, help_text="Live members no curator decided: the citations one decision fixes"
    )
    noticed = models.PositiveIntegerField(
        default=0, help_text="Live members whose work has standing-notice events"
    )
    decision = models.ForeignKey(
        "GroupDecision", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    revision = models.PositiveIntegerField(
        default=1, help_text="Bumped by each group decision and undo (no lost updates)"
    )
    counted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            # The group queue, by impact: citations one decision fixes, then works with
            # notices. Partial: a group no one decided with two or more undecided members.
            models.Index(
                F("undecided").desc(),
                F("noticed").desc(),
                F("id"),
                name="group_queue",
                condition=Q(decision__isnull=True, undecided__gte=2),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.size})"


class ReferenceGroupMember(models.Model):
    """Which group an observation is in (one each: the key has a precedence)."""

    observation = models.OneToOneField(
        Observation, on_delete=models.CASCADE, primary_key=True, related_name="group_membership"
    )
    group = models.ForeignKey(ReferenceGroup, on_delete=models.CASCADE, related_name="members")

    def __str__(self) -> str:
        return f"{self.observation_id} in {self.group_id}"


@_tracked("groupdecision")
class GroupDecision(models.Model):
    """One curator decision for every member of a group: who, when, why, and what.

    Each member's own decision is written through the observation decision path (pinned, its
    own history under the same context and reason) and points here from its evidence and from
    a GroupDecisionMember row, so the group's Undo knows what to revert.
    """

    group = models.ForeignKey(ReferenceGroup, on_delete=models.PROTECT, related_name="decisions")
    action = models.CharField(max_length=32)
    value = models.CharField(max_length=255, blank=True, default="")
    reason = models.TextField()
    actor = models.CharField(max_length=255)
    user_id = models.IntegerField(null=True, blank=True)
    decided_at = models.DateTimeField()
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["decided_at"], name="groupdecision_decided_at")]

    def __str__(self) -> str:
        return f"{self.action} {self.value}".strip()

    @property
    def metadata(self) -> dict[str, Any]:
        """Return who decided, as a history context names them (for people by name)."""
        return {"actor": self.actor, "user": self.user_id}


class GroupDecisionMember(models.Model):
    """What a group decision did to one member: applied (with the revisions it moved between,
    for Undo), or proposed (a member that joined later with other text: a curator confirms)."""

    # applied (Undo reverts it), proposed (joined with other text), then after an Undo:
    # undone (reverted) or kept (changed since: left as it is).
    APPLIED, PROPOSED, UNDONE, KEPT = "applied", "proposed", "undone", "kept"
    decision = models.ForeignKey(GroupDecision, on_delete=models.CASCADE, related_name="members")
    observation = models.ForeignKey(Observation, on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=16)
    before_revision = models.PositiveIntegerField()
    after_revision = models.PositiveIntegerField(null=True, blank=True)
    evidence = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["decision", "observation"], name="groupdecisionmember_once"
            )
        ]
        indexes = [models.Index(fields=["created_at"], name="groupdecisionmember_created")]

    def __str__(self) -> str:
        return f"{self.state} {self.observation_id}"
