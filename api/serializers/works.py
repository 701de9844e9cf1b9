"""Canonical cited works: the shape's fast builder and the serializers that describe it."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from curation.models import CitedWork

from .timestamps import timestamp


def cited_work_json(work: CitedWork) -> dict[str, Any]:
    """Return a canonical cited work with the number of live observations citing it."""
    return {
        "id": work.pk,
        "doi": work.doi,
        "arxiv_id": work.arxiv_id,
        "title": work.title,
        "created_at": timestamp(work.created_at),
        "citing_observations": work.citing_count,  # type: ignore[attr-defined]
    }


class CitedWorkSerializer(serializers.ModelSerializer[CitedWork]):
    """A canonical cited work (DOI or arXiv id)."""

    citing_observations = serializers.IntegerField(source="citing_count", read_only=True)

    class Meta:
        model = CitedWork
        fields = ["id", "doi", "arxiv_id", "title", "created_at", "citing_observations"]

    def to_representation(self, instance: CitedWork) -> dict[str, Any]:
        """Return the fast representation (the builder above) this class describes."""
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
