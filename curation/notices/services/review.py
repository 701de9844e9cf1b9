"""Staff review decisions on notice events, each made on the revision its reviewer saw.

A review's revision moves on every change (a decision, a reopening when the event changed), so
two reviewers deciding from the same page cannot both win: the second is refused with who
decided, when and why, and the current decision and note, and must decide again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from curation.audit import Actor, audited
from curation.history import event_model, last_change
from curation.models import CitedWork

from ..models import NoticeReview, ReviewStatus
from .follow import store_work_notices

DECISIONS = (ReviewStatus.CONFIRMED, ReviewStatus.DISMISSED)


class MissingNote(ValueError):
    """A review decision was attempted without a note."""


@dataclass
class StaleReview(ValueError):
    """Someone changed the review since the reviewer saw it: nothing was overwritten."""

    review_id: int
    expected: int
    current: int
    status: str
    note: str
    reviewer: str | None
    decided_at: datetime | None
    last_change: dict[str, Any]

    def __str__(self) -> str:
        who = self.last_change.get("actor") or self.reviewer or "someone"
        when = self.last_change.get("at") or "an unknown time"
        why = self.last_change.get("reason") or "no reason recorded"
        return (
            f"notice review {self.review_id} was changed by {who} at {when} ({why}); it is now "
            f"{self.status}. You decided on revision {self.expected}, it is now {self.current}: "
            "read the current decision and decide again."
        )

    def detail(self) -> dict[str, Any]:
        """Return who, when and why of the change that superseded the reviewer's revision."""
        return {
            "message": str(self),
            "review_id": self.review_id,
            "expected_revision": self.expected,
            "current_revision": self.current,
            "current_decision": self.status,
            "current_note": self.note,
            "decided_by": self.reviewer,
            "decided_at": self.decided_at.isoformat() if self.decided_at else None,
            "changed_by": self.last_change.get("actor"),
            "changed_at": self.last_change.get("at"),
            "change_source": self.last_change.get("source"),
            "reason": self.last_change.get("reason"),
        }


def last_review_change(review_id: int) -> dict[str, Any]:
    """Return the history context (who, where from, why) and time of the review's last change."""
    return last_change("NoticeReview", review_id, "notices")


def _locked(review_id: int, expected_revision: int) -> NoticeReview:
    """Lock the review's work, then the review (refresh's order); refuse a stale revision."""
    work_id = NoticeReview.objects.values_list("event__work_id", flat=True).get(pk=review_id)
    # The work first, as a refresh locks it before touching events and reviews: no deadlock.
    CitedWork.objects.select_for_update().filter(pk=work_id).first()
    review = (
        NoticeReview.objects.select_for_update(of=("self",))
        .select_related("event", "reviewer")
        .get(pk=review_id)
    )
    if review.revision != expected_revision:
        raise StaleReview(
            review.pk,
            expected_revision,
            review.revision,
            review.status,
            review.note,
            review.reviewer.get_username() if review.reviewer else None,
            review.decided_at,
            last_review_change(review.pk),
        )
    return review


@transaction.atomic
def review_decide(
    *, review_id: int, decision: str, note: str, expected_revision: int, actor: Actor
) -> NoticeReview:
    """Confirm an event or dismiss it as a false match, on the revision the reviewer saw.

    A dismissed event leaves the records (its observations' notices are recomputed at once).
    """
    if decision not in DECISIONS:
        raise ValueError(f"a review decides confirmed or dismissed, not {decision!r}")
    if not note or not note.strip():
        raise MissingNote("a review decision needs a note")
    now = timezone.now()
    with audited(actor, f"notice review {decision}: {note.strip()}"):
        review = _locked(review_id, expected_revision)
        review.status, review.note, review.decided_at = decision, note.strip(), now
        review.reviewer_id = actor.user_id
        review.revision += 1
        review.save()
        event = review.event
        dismissed = decision == ReviewStatus.DISMISSED
        if event.dismissed != dismissed:
            event.dismissed = dismissed
            event.save(update_fields=["dismissed"])
            store_work_notices([event.work_id], now)
    return review


@dataclass(frozen=True)
class ReviewChange:
    """One version of a review, as its history event stored it, with who, from where and why."""

    at: datetime
    actor: str
    source: str
    reason: str
    status: str
    note: str
    revision: int


def review_history(review_id: int) -> list[ReviewChange]:
    """Return every version of a review, oldest first: the decision and note values each held."""
    events = (
        event_model("NoticeReview", "notices")
        .objects.filter(pgh_obj_id=review_id)
        .select_related("pgh_context")
        .order_by("pgh_id")
    )
    changes = []
    for event in events:
        metadata = event.pgh_context.metadata if event.pgh_context else {}
        changes.append(
            ReviewChange(
                at=event.pgh_created_at,
                actor=str(metadata.get("actor") or "unknown"),
                source=str(metadata.get("source") or ""),
                reason=str(metadata.get("reason") or ""),
                status=event.status,
                note=event.note,
                revision=event.revision,
            )
        )
    return changes
