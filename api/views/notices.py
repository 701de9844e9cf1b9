"""Notice events: what named sources report about cited works, with their review state, and
the staff review of one event (Notice reviewers only), made on the review revision its author saw.
"""

from __future__ import annotations

from typing import Any

import django_filters as filters
from django.db.models import Q, QuerySet
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from curation.audit import Actor
from curation.notices.models import EVENT_TYPE_CHOICES, NoticeEvent, NoticeSource, ReviewStatus
from curation.notices.selectors import (
    notice_event_with_review,
    notice_events_with_reviews,
    review_of_event,
)
from curation.notices.services.review import DECISIONS, MissingNote, StaleReview, review_decide
from curation.permissions import NOTICE_REVIEWERS
from curation.states import ChangeSource

from ..caching import NOT_MODIFIED, PRIVATE
from ..errors import NO_STORE, error_body
from ..schema import AUTH_ERRORS, ERROR_BODY, ERRORS
from ..serializers.notices import NoticeEventSerializer, notice_event_json
from ..serializers.stale import StaleReviewResponseSerializer
from .base import CachedListView
from .curation import IF_MATCH, RevisionRequired, expected_revision


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


class NoticeEventList(CachedListView):
    """List notice events, oldest first."""

    serializer_class = NoticeEventSerializer
    filterset_class = NoticeEventFilter
    cursor_ordering = ("id",)

    def rows_json(self, rows: list[NoticeEvent]) -> list[Any]:
        """Return the rows as NoticeEventSerializer describes them."""
        return [notice_event_json(row) for row in rows]

    def get_queryset(self) -> QuerySet[NoticeEvent]:
        """Return events with their work and review, in one statement."""
        return notice_events_with_reviews()

    @extend_schema(
        summary="Notice events (retractions, corrections, ...)",
        responses={200: NoticeEventSerializer(many=True), **NOT_MODIFIED, **ERRORS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer a page of events."""
        return super().get(request, *args, **kwargs)


class ReviewInput(serializers.Serializer[Any]):
    """A review decision: confirm, or dismiss as a false match; either way with a note."""

    decision = serializers.ChoiceField(choices=[d.value for d in DECISIONS])
    note = serializers.CharField(max_length=4000, help_text="Why (kept in the history).")
    revision = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text=(
            "The review revision you saw (the event's `review_revision`); required unless sent "
            'as If-Match: "<revision>". A newer stored revision gives 409 instead of overwriting.'
        ),
    )


class IsNoticeReviewer(BasePermission):
    """Allow staff who may decide notice reviews (the Notice reviewers group)."""

    message = f"notice reviews are decided by members of the {NOTICE_REVIEWERS!r} group"

    def has_permission(self, request: Request, view: Any) -> bool:
        """Return whether the user may change notice reviews."""
        user = request.user
        return bool(user and user.is_authenticated and user.has_perm("notices.change_noticereview"))


def _revision_seen(request: Request, data: dict[str, Any]) -> int:
    try:
        return expected_revision(request, data)
    except RevisionRequired as exc:
        raise RevisionRequired(
            'Say which review revision you decided on: "revision" in the body or an '
            'If-Match: "<revision>" header (the event\'s `review_revision`).'
        ) from exc


class NoticeEventReview(APIView):
    """Decide the staff review of one notice event (Notice reviewers only)."""

    permission_classes = [IsNoticeReviewer]

    @extend_schema(
        summary="Confirm or dismiss a notice event (Notice reviewers)",
        request=ReviewInput,
        parameters=[IF_MATCH],
        responses={
            200: NoticeEventSerializer,
            409: OpenApiResponse(
                StaleReviewResponseSerializer,
                description="Stale revision: someone decided the review since you saw it",
            ),
            428: OpenApiResponse(
                ERROR_BODY, description="Neither `revision` nor If-Match says what you saw"
            ),
            **AUTH_ERRORS,
            **ERRORS,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        """Decide, audit, and answer the event as it now stands."""
        review = review_of_event(pk)
        if review is None:
            raise Http404("No NoticeReview matches the given query.")  # Django's wording, as before
        form = ReviewInput(data=request.data)
        form.is_valid(raise_exception=True)
        revision = _revision_seen(request, form.validated_data)
        try:
            review_decide(
                review_id=review.pk,
                decision=form.validated_data["decision"],
                note=form.validated_data["note"],
                expected_revision=revision,
                actor=Actor.for_user(request.user, ChangeSource.API),
            )
        except StaleReview as exc:
            # Built here, not raised: DRF would turn the integers of the detail into strings.
            body = error_body(status.HTTP_409_CONFLICT, "stale_revision", exc.detail())
            return Response(body, status=409, headers={"Cache-Control": NO_STORE})
        except MissingNote as exc:
            raise ValidationError({"note": str(exc)}) from exc
        event = notice_event_with_review(pk)
        return Response(notice_event_json(event), headers={"Cache-Control": PRIVATE})
