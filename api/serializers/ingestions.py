"""Where a paper's ingestion stands, and what a request to add papers queued or refused."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from curation.ingestion.models import PaperIngestion


class IngestionSerializer(serializers.ModelSerializer[PaperIngestion]):
    """Where a paper's ingestion stands and, when it failed, why."""

    arxiv_id = serializers.CharField(source="paper.arxiv_id")

    class Meta:
        model = PaperIngestion
        fields = [
            "arxiv_id", "state", "error", "version", "source_kind", "method", "main_tex",
            "reference_count", "warnings", "attempts", "requested_at", "started_at",
            "finished_at", "updated_at",
        ]  # fmt: skip


class RefusedSerializer(serializers.Serializer[Any]):
    given = serializers.CharField()
    why = serializers.CharField()


class AddPapersOutput(serializers.Serializer[Any]):
    queued = serializers.ListField(child=serializers.CharField())
    active = serializers.ListField(child=serializers.CharField())
    refused = RefusedSerializer(many=True)
