"""History events with their audit context (who, from where, why)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


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
