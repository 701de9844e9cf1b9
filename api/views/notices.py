"""Notice events: what named sources report about cited works, with their review state."""

from __future__ import annotations

from typing import Any

import django_filters as filters
from django.db.models import Q, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from curation.notices.models import (
    EVENT_TYPE_CHOICES,
    NoticeEvent,
    NoticeSource,
    ReviewStatus,
)

from ..representations import timestamp
from ..schema import ERRORS
from .base import ListView


class NoticeEventFilter(filters.FilterSet):
    """Filter events by type, source, review state, date, work, and first sighting."""

    type = filters.ChoiceFilter(choices=EVENT_TYPE_CHOICES)
    source = filters.ChoiceFilter(choices=NoticeSource.choices)
    review_state = filters.ChoiceFilter(
        choices=ReviewStatus.choices,
        method="filter_review_state",
        help_text="new (also: not yet queued), confirmed or dismissed.",
    )
    date_after = filters.DateFilter(field_name="date", lookup_expr="gte")
    date_before = filters.DateFilter(field_name="date", lookup_expr="lte")
    seen_since = filters.IsoDateTimeFilter(
        field_name="first_seen_at", lookup_expr="gte", help_text="First reported at or after."
    )
    work = filters.NumberFilter(field_name="work_id")
    doi = filters.CharFilter(field_name="work__doi", lookup_expr="iexact")

    class Meta:
        model = NoticeEvent
        fields: list[str] = []

    def filter_review_state(
        self, queryset: QuerySet[NoticeEvent], name: str, value: str
    ) -> QuerySet[NoticeEvent]:
        """Keep events in the review state; an event not yet queued counts as new."""
        if value == ReviewStatus.NEW:
            return queryset.filter(Q(review__status=value) | Q(review__isnull=True))
        return queryset.filter(review__status=value)


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

    def to_representation(self, instance: NoticeEvent) -> dict[str, Any]:
        """Return the fast representation."""
        return notice_event_json(instance)


class NoticeEventList(ListView):
    """List notice events, oldest first."""

    serializer_class = NoticeEventSerializer
    filterset_class = NoticeEventFilter
    cursor_ordering = ("id",)

    def get_queryset(self) -> QuerySet[NoticeEvent]:
        """Return events with their work and review, in one statement."""
        return NoticeEvent.objects.select_related("work", "review")

    @extend_schema(
        summary="Notice events (retractions, corrections, ...)",
        responses={200: NoticeEventSerializer(many=True), **ERRORS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer a page of events."""
        return super().get(request, *args, **kwargs)
