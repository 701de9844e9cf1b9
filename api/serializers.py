"""Representations of what citerec knows beyond v1: papers, observations, works, history."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from curation.models import CitedWork, Observation, Paper, Resolution, StandingNotice
from curation.resolution.versions import ARXIV_DOI, CROSSREF_RELATION, JOURNAL_REF

from .representations import (
    cited_work_json,
    deleted_observation_json,
    observation_json,
    paper_json,
    record_change_json,
)


class PaperSerializer(serializers.ModelSerializer[Paper]):
    """An arXiv paper with the links to its record."""

    categories = serializers.ListField(child=serializers.CharField())
    links = serializers.DictField(child=serializers.CharField())

    class Meta:
        model = Paper
        fields = [
            "arxiv_id",
            "title",
            "authors",
            "doi",
            "categories",
            "primary_category",
            "latest_version",
            "submitted_at",
            "last_updated",
            "snapshot_observed_at",
            "journal_ref",
            "comments",
            "in_catalogue",
            "links",
        ]

    def to_representation(self, instance: Paper) -> dict[str, Any]:
        """Return the fast representation (api/representations.py) this class describes."""
        return paper_json(instance)


class ResolutionSerializer(serializers.ModelSerializer[Resolution]):
    """The current resolution with its evidence (SPEC §2)."""

    evidence = serializers.JSONField()

    class Meta:
        model = Resolution
        fields = [
            "status",
            "resolver_source",
            "observed_at",
            "origin",
            "resolver_version",
            "evidence",
        ]


class StandingNoticeSerializer(serializers.ModelSerializer[StandingNotice]):
    """The stored standing notice, with its events and receipts (SPEC §4)."""

    observation = serializers.CharField(source="observation_text", allow_null=True)
    events = serializers.ListField(child=serializers.DictField())
    source_receipts = serializers.ListField(child=serializers.DictField())

    class Meta:
        model = StandingNotice
        fields = [
            "state",
            "reason",
            "observation",
            "events",
            "source_receipts",
            "origin",
            "refreshed_at",
        ]


class DescribedWorkSerializer(serializers.ModelSerializer[Observation]):
    """The work as the reference describes it (v1 `citation.cited_work`)."""

    described = serializers.BooleanField(source="work_described")
    work_id = serializers.UUIDField(allow_null=True)
    title = serializers.CharField(source="work_title", allow_null=True)
    year = serializers.IntegerField(source="work_year", allow_null=True)
    venue = serializers.CharField(source="work_venue", allow_null=True)
    doi = serializers.CharField(source="work_doi", allow_null=True)
    arxiv_id = serializers.CharField(source="work_arxiv_id", allow_null=True)
    pith_arxiv_id = serializers.CharField(source="work_pith_arxiv_id", allow_null=True)
    metadata_source = serializers.CharField(source="work_metadata_source", allow_null=True)
    snapshot_observed_at = serializers.DateTimeField(
        source="work_snapshot_observed_at", allow_null=True
    )

    class Meta:
        model = Observation
        fields = [
            "described",
            "work_id",
            "title",
            "year",
            "venue",
            "doi",
            "arxiv_id",
            "pith_arxiv_id",
            "metadata_source",
            "snapshot_observed_at",
        ]


class VersionSetSerializer(serializers.Serializer[Any]):
    """An arXiv paper and the DOI it was published under: two identifiers of one work."""

    arxiv_id = serializers.CharField()
    doi = serializers.CharField()
    via = serializers.ChoiceField(
        choices=[ARXIV_DOI, CROSSREF_RELATION, JOURNAL_REF],
        help_text="How it is known: the arXiv record's DOI, Crossref's relation "
        "(has-preprint / is-preprint-of), or its journal-ref matching a Crossref work",
    )


class ObservationSerializer(serializers.ModelSerializer[Observation]):
    """One reference with everything citerec knows about it; retired ones are tombstones."""

    paper = serializers.CharField(source="paper.arxiv_id")
    cited_paper = serializers.CharField(source="cited_paper.arxiv_id", allow_null=True)
    cited_work = serializers.IntegerField(source="cited_work_id", allow_null=True)
    version_set = VersionSetSerializer(
        allow_null=True,
        help_text="The linked arXiv paper's published version: both identifiers of the link",
    )
    work = DescribedWorkSerializer(source="*")
    resolution = ResolutionSerializer(allow_null=True)
    standing_notice = StandingNoticeSerializer(allow_null=True)
    retired = serializers.BooleanField(help_text="The reference left its list: a tombstone.")
    links = serializers.DictField(child=serializers.CharField())

    class Meta:
        model = Observation
        fields = [
            "id",
            "paper",
            "reference_index",
            "source",
            "source_observed_at",
            "raw_text",
            "normalized_text",
            "occurrence",
            "cited_paper",
            "cited_work",
            "version_set",
            "work",
            "resolution",
            "standing_notice",
            "pinned",
            "no_canonical_record",
            "retired",
            "retired_at",
            "revision",
            "changed_at",
            "links",
        ]

    def to_representation(self, instance: Observation) -> dict[str, Any]:
        """Return the fast representation (api/representations.py) this class describes."""
        return observation_json(instance)


class DeletedObservationSerializer(serializers.Serializer[Any]):
    """A tombstone of a deleted observation, read from its history delete event."""

    id = serializers.UUIDField(source="pgh_obj_id")
    paper = serializers.CharField(
        source="paper_arxiv_id", allow_null=True, help_text="The citing paper's arXiv id."
    )
    reference_index = serializers.IntegerField()
    deleted_at = serializers.DateTimeField(source="pgh_created_at")
    deleted = serializers.SerializerMethodField()

    def get_deleted(self, event: Any) -> bool:
        """Return true: the row is a tombstone."""
        return True

    def to_representation(self, instance: Any) -> dict[str, Any]:
        """Return the fast representation (api/representations.py) this class describes."""
        return deleted_observation_json(instance)


class RecordChangeSerializer(serializers.ModelSerializer[Paper]):
    """A paper whose record changed substantively, for sync clients."""

    changed_at = serializers.DateTimeField(source="record_changed_at")
    record = serializers.SerializerMethodField()

    class Meta:
        model = Paper
        fields = ["arxiv_id", "changed_at", "record"]

    def get_record(self, paper: Paper) -> str:
        """Return the API path of the record."""
        return f"/api/v1/records/{paper.arxiv_id}"

    def to_representation(self, instance: Paper) -> dict[str, Any]:
        """Return the fast representation (api/representations.py) this class describes."""
        return record_change_json(instance)


class CitedWorkSerializer(serializers.ModelSerializer[CitedWork]):
    """A canonical cited work (DOI or arXiv id)."""

    citing_observations = serializers.IntegerField(source="citing_count", read_only=True)

    class Meta:
        model = CitedWork
        fields = ["id", "doi", "arxiv_id", "title", "created_at", "citing_observations"]

    def to_representation(self, instance: CitedWork) -> dict[str, Any]:
        """Return the fast representation (api/representations.py) this class describes."""
        return cited_work_json(instance)


class CitedWorkDetailSerializer(CitedWorkSerializer):
    """A cited work with the papers that cite it (the first ones, by arXiv id)."""

    citing_papers = serializers.SerializerMethodField()

    class Meta(CitedWorkSerializer.Meta):
        fields = [*CitedWorkSerializer.Meta.fields, "citing_papers"]

    @extend_schema_field({"type": "array", "items": {"type": "string"}})
    def get_citing_papers(self, work: CitedWork) -> list[str]:
        """Return the arXiv ids of the citing papers, as read by the view."""
        return list(self.context.get("citing_papers", []))

    def to_representation(self, instance: CitedWork) -> dict[str, Any]:
        """Return the work with its first citing papers."""
        return {**cited_work_json(instance), "citing_papers": self.get_citing_papers(instance)}


class HistoryEventSerializer(serializers.Serializer[Any]):
    """One history event: what changed, when, and the audit context (who, from where, why)."""

    id = serializers.CharField(source="pgh_slug")
    model = serializers.CharField(source="pgh_model")
    label = serializers.CharField(source="pgh_label")
    created_at = serializers.DateTimeField(source="pgh_created_at")
    object_model = serializers.CharField(source="pgh_obj_model")
    object_id = serializers.CharField(source="pgh_obj_id", allow_null=True)
    data = serializers.JSONField(source="pgh_data")
    diff = serializers.JSONField(source="pgh_diff", allow_null=True)
    context = serializers.JSONField(source="pgh_context", allow_null=True)


class StaleChangeSerializer(serializers.Serializer[Any]):
    """What every refusal of a stale write says: the revisions, and who moved it, when, why."""

    message = serializers.CharField()
    expected_revision = serializers.IntegerField(help_text="The revision you sent.")
    current_revision = serializers.IntegerField(help_text="The revision now stored.")
    changed_by = serializers.CharField(allow_null=True, help_text="Who made the newer change.")
    changed_at = serializers.DateTimeField(allow_null=True)
    change_source = serializers.CharField(
        allow_null=True, help_text="Where from: admin, api, task, import, command."
    )
    reason = serializers.CharField(allow_null=True, help_text="Why, as its author gave it.")


class StaleRevisionDetailSerializer(StaleChangeSerializer):
    """Why a curation write was refused: the revision moved on, and who moved it, when, why."""

    observation_id = serializers.UUIDField()


class StaleRevisionErrorSerializer(serializers.Serializer[Any]):
    """The API's error document with a typed detail (status 409, code "stale_revision")."""

    status = serializers.IntegerField()
    code = serializers.CharField(help_text='Always "stale_revision".')
    detail = StaleRevisionDetailSerializer()


class StaleRevisionResponseSerializer(serializers.Serializer[Any]):
    """The 409 body of a curation write made on a revision that is no longer current."""

    error = StaleRevisionErrorSerializer()
