"""Papers and the change feed of their records: each shape's fast builder and the serializer
that describes it for the OpenAPI schema."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from curation.models import Paper
from curation.record.builder import record_links

from .timestamps import timestamp


def paper_json(paper: Paper) -> dict[str, Any]:
    """Return a paper with the links to its record."""
    return {
        "arxiv_id": paper.arxiv_id,
        "title": paper.title,
        "authors": paper.authors,
        "doi": paper.doi,
        "categories": paper.categories.split(),
        "primary_category": paper.primary_category,
        "latest_version": paper.latest_version,
        "submitted_at": timestamp(paper.submitted_at),
        "last_updated": timestamp(paper.last_updated),
        "snapshot_observed_at": timestamp(paper.snapshot_observed_at),
        "journal_ref": paper.journal_ref,
        "comments": paper.comments,
        "in_catalogue": paper.in_catalogue,
        "links": {
            **record_links(paper.arxiv_id),
            "api_record": f"/api/v1/records/{paper.arxiv_id}",
        },
    }


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
        """Return the fast representation (the builder above) this class describes."""
        return paper_json(instance)


def record_change_json(paper: Paper) -> dict[str, Any]:
    """Return a paper of the change feed: when its record last changed, and where it is."""
    return {
        "arxiv_id": paper.arxiv_id,
        "changed_at": timestamp(paper.record_changed_at),  # type: ignore[attr-defined]
        "record": f"/api/v1/records/{paper.arxiv_id}",
    }


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
        """Return the fast representation (the builder above) this class describes."""
        return record_change_json(instance)
