"""The 409 bodies of a write made on a revision that is no longer current (curation decisions,
notice reviews): the revisions, and who moved it on, when, why."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


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


class StaleReviewDetailSerializer(StaleChangeSerializer):
    """Why a review decision was refused: who decided meanwhile, when, why, and what stands."""

    review_id = serializers.IntegerField()
    current_decision = serializers.CharField(help_text="new, confirmed or dismissed")
    current_note = serializers.CharField(allow_blank=True)
    decided_by = serializers.CharField(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)


class _StaleReviewErrorSerializer(serializers.Serializer[Any]):
    status = serializers.IntegerField()
    code = serializers.CharField(help_text='Always "stale_revision".')
    detail = StaleReviewDetailSerializer()


class StaleReviewResponseSerializer(serializers.Serializer[Any]):
    """The 409 body of a review decision made on a revision that is no longer current."""

    error = _StaleReviewErrorSerializer()
