"""Notice events with their work and public review state: the fast builder and its serializer."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from curation.notices.models import EVENT_TYPE_CHOICES, NoticeEvent, NoticeSource, ReviewStatus

from .timestamps import timestamp


def notice_event_json(event: NoticeEvent) -> dict[str, Any]:
    """Return one event with its work and public review state (reviewer notes stay internal)."""
    review = getattr(event, "review", None)
    return {
        "id": event.pk,
        "work": {"id": event.work_id, "doi": event.work.doi, "arxiv_id": event.work.arxiv_id},
        "source": event.source,
        "type": event.type,
        "severity": event.severity,
        "date": event.date.isoformat() if event.date else None,
        "work_doi": event.work_doi,
        "notice_doi": event.notice_doi,
        "notice_url": event.notice_url,
        "reasons": event.reasons,
        "source_record_id": event.source_record_id,
        "first_seen_at": timestamp(event.first_seen_at),
        "last_seen_at": timestamp(event.last_seen_at),
        "still_reported": event.still_reported,
        "superseded": event.superseded,
        "dismissed": event.dismissed,
        "review_state": review.status if review is not None else ReviewStatus.NEW.value,
        "reviewed_at": timestamp(review.decided_at) if review is not None else None,
        "review_revision": review.revision if review is not None else None,
    }


class _WorkRef(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    doi = serializers.CharField(allow_null=True)
    arxiv_id = serializers.CharField(allow_null=True)


class NoticeEventSerializer(serializers.Serializer[NoticeEvent]):
    """A notice event as the API shows it (the shape of notice_event_json)."""

    id = serializers.IntegerField()
    work = _WorkRef()
    source = serializers.ChoiceField(choices=NoticeSource.choices)
    type = serializers.ChoiceField(choices=EVENT_TYPE_CHOICES)
    severity = serializers.IntegerField(help_text="0 is the most severe")
    date = serializers.DateField(allow_null=True)
    work_doi = serializers.CharField(allow_null=True)
    notice_doi = serializers.CharField(allow_null=True)
    notice_url = serializers.CharField(allow_null=True)
    reasons = serializers.ListField(child=serializers.CharField())
    source_record_id = serializers.CharField(allow_null=True)
    first_seen_at = serializers.DateTimeField()
    last_seen_at = serializers.DateTimeField()
    still_reported = serializers.BooleanField()
    superseded = serializers.BooleanField()
    dismissed = serializers.BooleanField()
    review_state = serializers.ChoiceField(choices=ReviewStatus.choices)
    reviewed_at = serializers.DateTimeField(allow_null=True)
    review_revision = serializers.IntegerField(
        allow_null=True,
        help_text="Send it back as `revision` (or If-Match) to decide the review; null: not queued",
    )

    def to_representation(self, instance: NoticeEvent) -> dict[str, Any]:
        """Return the fast representation."""
        return notice_event_json(instance)
