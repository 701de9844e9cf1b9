"""Observations (one reference with everything citerec knows about it) and the tombstones of
deleted ones: each shape's fast builder and the serializers that describe it."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from curation.catalogue.versions import ARXIV_DOI, CROSSREF_RELATION, JOURNAL_REF, shown_version
from curation.models import Observation, Resolution, StandingNotice
from curation.record.builder import paper_path

from .timestamps import timestamp


def resolution_json(resolution: Resolution | None) -> dict[str, Any] | None:
    """Return the current resolution with its evidence, or None."""
    if resolution is None:
        return None
    return {
        "status": resolution.status,
        "resolver_source": resolution.resolver_source,
        "observed_at": timestamp(resolution.observed_at),
        "origin": resolution.origin,
        "resolver_version": resolution.resolver_version,
        "evidence": resolution.evidence,
    }


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


def notice_json(notice: StandingNotice | None) -> dict[str, Any] | None:
    """Return the stored standing notice, or None."""
    if notice is None:
        return None
    return {
        "state": notice.state,
        "reason": notice.reason,
        "observation": notice.observation_text,
        "events": notice.events,
        "source_receipts": notice.source_receipts,
        "origin": notice.origin,
        "refreshed_at": timestamp(notice.refreshed_at),
    }


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


def described_work_json(observation: Observation) -> dict[str, Any]:
    """Return the work as the reference describes it (v1 `citation.cited_work`)."""
    return {
        "described": observation.work_described,
        "work_id": str(observation.work_id) if observation.work_id else None,
        "title": observation.work_title,
        "year": observation.work_year,
        "venue": observation.work_venue,
        "doi": observation.work_doi,
        "arxiv_id": observation.work_arxiv_id,
        "pith_arxiv_id": observation.work_pith_arxiv_id,
        "metadata_source": observation.work_metadata_source,
        "snapshot_observed_at": timestamp(observation.work_snapshot_observed_at),
    }


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


def version_set_json(observation: Observation) -> dict[str, str] | None:
    """Return the linked arXiv paper with the DOI it was published under, and how that is
    known (curation.catalogue.versions), or None: v1 has no place for the published DOI of a
    reference that gave the arXiv id."""
    cited = observation.cited_paper
    if cited is None:
        return None
    resolution = getattr(observation, "resolution", None)
    return shown_version(cited.arxiv_id, cited.doi, resolution.evidence if resolution else None)


class VersionSetSerializer(serializers.Serializer[Any]):
    """An arXiv paper and the DOI it was published under: two identifiers of one work."""

    arxiv_id = serializers.CharField()
    doi = serializers.CharField()
    via = serializers.ChoiceField(
        choices=[ARXIV_DOI, CROSSREF_RELATION, JOURNAL_REF],
        help_text="How it is known: the arXiv record's DOI, Crossref's relation "
        "(has-preprint / is-preprint-of), or its journal-ref matching a Crossref work",
    )


def observation_json(observation: Observation) -> dict[str, Any]:
    """Return one reference with everything citerec knows about it."""
    cited = observation.cited_paper
    listing = getattr(observation, "listing", None)  # none for imported records' observations
    links = {
        "self": f"/api/v1/observations/{observation.id}",
        "citing_paper": paper_path(observation.paper.arxiv_id),
    }
    if cited is not None:
        links["cited_paper"] = paper_path(cited.arxiv_id)
    return {
        "id": str(observation.id),
        "paper": observation.paper.arxiv_id,
        "reference_index": observation.reference_index,
        "source": observation.source,
        "source_observed_at": timestamp(observation.source_observed_at),
        "raw_text": observation.raw_text,
        "cite_key": listing.key if listing is not None else None,
        "normalized_text": observation.normalized_text,
        "occurrence": observation.occurrence,
        "cited_paper": cited.arxiv_id if cited is not None else None,
        "cited_work": observation.cited_work_id,
        "version_set": version_set_json(observation),
        "work": described_work_json(observation),
        "resolution": resolution_json(getattr(observation, "resolution", None)),
        "standing_notice": notice_json(getattr(observation, "standing_notice", None)),
        "pinned": observation.pinned,
        "no_canonical_record": observation.no_canonical_record,
        "retired": observation.retired_at is not None,
        "retired_at": timestamp(observation.retired_at),
        "revision": observation.revision,
        "changed_at": timestamp(observation.changed_at),
        "links": links,
    }


class ObservationSerializer(serializers.ModelSerializer[Observation]):
    """One reference with everything citerec knows about it; retired ones are tombstones."""

    paper = serializers.CharField(source="paper.arxiv_id")
    cite_key = serializers.CharField(
        source="listing.key",
        allow_null=True,
        help_text="The reference's cite key in its source (.bib, .bbl, LaTeX source; TEI or "
        "JATS id); null when the list has none or the observation came with an imported record",
    )
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
            "cite_key",
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
        """Return the fast representation (the builder above) this class describes."""
        return observation_json(instance)


def deleted_observation_json(event: Any) -> dict[str, Any]:
    """Return the tombstone of a deleted observation from its history delete event."""
    return {
        "id": str(event.pgh_obj_id),
        "paper": event.paper_arxiv_id,
        "reference_index": event.reference_index,
        "deleted_at": timestamp(event.pgh_created_at),
        "deleted": True,
    }


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
        """Return the fast representation (the builder above) this class describes."""
        return deleted_observation_json(instance)
