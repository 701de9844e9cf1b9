"""Email the notice reviewers about new retractions and expressions of concern."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.urls import reverse

from .models import NoticeReview
from .selectors import ALERT_TYPES, affected_observations

REVIEWERS_GROUP = "Notice reviewers"

logger = logging.getLogger(__name__)


def reviewer_emails() -> list[str]:
    """Return the addresses of the active members of the notice reviewers group."""
    users = get_user_model().objects.filter(
        groups__name=REVIEWERS_GROUP, is_active=True, email__gt=""
    )
    return sorted(set(users.values_list("email", flat=True)))


def notify_reviewers(review_ids: Sequence[int]) -> int:
    """Send one email listing the opened reviews that are alerts; return how many it listed."""
    reviews = list(
        NoticeReview.objects.filter(
            pk__in=review_ids, event__type__in=ALERT_TYPES, event__superseded=False
        )
        .select_related("event__work")
        .order_by("severity", "event__date")
    )
    recipients = reviewer_emails()
    if not reviews or not recipients:
        return 0
    subject = f"[citerec] {len(reviews)} new retraction notice(s) to review"
    body = "\n\n".join(_describe(review) for review in reviews)
    queue = getattr(settings, "CITEREC_BASE_URL", "") + reverse(
        "admin:notices_noticereview_changelist"
    )
    message = f"Sources report these notices about works cited here.\n\n{body}\n\nReview: {queue}\n"
    # A mail outage must not undo or fail the refresh that found the notices.
    try:
        send_mail(subject, message, None, recipients)
    except Exception:
        logger.exception("could not email the notice reviewers about %s", review_ids)
        return 0
    return len(reviews)


def _describe(review: NoticeReview) -> str:
    event = review.event
    citing = sorted({o.paper.arxiv_id for o in affected_observations(event.work_id)})
    lines = [
        f"{event.get_type_display().capitalize()} of {event.work}"
        f" ({event.date.isoformat() if event.date else 'undated'}), reported by {event.source}",
        f"  notice: {event.notice_doi or event.notice_url or 'no notice DOI'}",
        f"  cited by {len(citing)} paper(s): " + ", ".join(f"arXiv:{a}" for a in citing[:20]),
    ]
    return "\n".join(lines)
