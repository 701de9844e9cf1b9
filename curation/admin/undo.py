"""The one-click undo a saved decision's success message carries.

The undo is curation.services.observations.observation_undo: a revert to the revision the
decision was made on, with the reason "undo", posted on the revision the decision left. If
anyone changed the reference since (a notice check aside), it is refused like any stale
decision (the page's "yours beside the current values" panel) and nothing is overwritten.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.utils.html import format_html
from django.utils.safestring import SafeString

from curation.models import Observation
from curation.services.observations import UNDO_REASON


def with_undo(
    request: HttpRequest, message: str, after: Observation, before_revision: int, page_url: str
) -> SafeString:
    """Return the message followed by a form that reverts `after` to `before_revision`."""
    return format_html(
        '{} <form method="post" action="{}" class="cr-undo">'
        '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'
        '<input type="hidden" name="action" value="undo">'
        '<input type="hidden" name="revision" value="{}">'
        '<input type="hidden" name="to_revision" value="{}">'
        '<input type="hidden" name="reason" value="{}">'
        '<button type="submit" id="cr-undo-{}" title="Back to revision {}, reason “{}”">'
        "Undo</button></form>",
        message,
        page_url,
        get_token(request),
        after.revision,
        before_revision,
        UNDO_REASON,
        after.pk,
        before_revision,
        UNDO_REASON,
    )
