"""A refresh batch stores notices in SQL (`store_work_notices`), observations in hand go through
`store_computed_notices`: both follow one rule, checked here on twin works in every state a
notice can be in before a refresh."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.utils import timezone

from curation.audit import Actor, audited
from curation.models import Observation, StandingNotice
from curation.notices.models import NoticeSource, ReceiptOutcome, SourceReceipt
from curation.notices.services.follow import (
    locked_with_notices,
    store_computed_notices,
    store_work_notices,
)
from curation.states import NoticeState, Origin

from .records import import_citing_record, work_for

pytestmark = pytest.mark.django_db

ACTOR = Actor.command("tests")
ASKED_AT = datetime(2026, 11, 30, 8, 15, 0, 123456, tzinfo=UTC)
CASES = ("no notice", "imported", "receipts only differ", "state differs", "unchanged")


def _prepare(prefix: str) -> list[int]:
    """Import a record citing one work per case, put each notice in its case; return the works."""
    dois: list[str | None] = [f"10.1000/{prefix}{n}" for n in range(len(CASES))]
    import_citing_record(dois=dois, citing=f"2412.0000{1 if prefix == 'x' else 2}")
    works = [work_for(doi) for doi in dois if doi]
    with audited(ACTOR, "test setup"):
        for work in works:
            SourceReceipt.objects.create(
                work=work,
                source=NoticeSource.CROSSREF,
                observed_at=ASKED_AT,
                outcome=ReceiptOutcome.ANSWERED,
                query=work.doi or "",
            )
        notices = {w.pk: StandingNotice.objects.get(observation__cited_work=w) for w in works}
        notices[works[0].pk].delete()
        # works[1]: as imported (origin imported, the record's values)
        stale = {"observed_at": "2026-01-01T00:00:00.000000+00:00", "source": "crossref"}
        for work, state in ((works[2], NoticeState.MEASURED), (works[3], NoticeState.UNAVAILABLE)):
            notice = notices[work.pk]
            notice.state, notice.origin, notice.source_receipts = state, Origin.COMPUTED, [stale]
            notice.reason = None if state == NoticeState.MEASURED else "no_source_answered"
            notice.events, notice.observation_text = [], "earlier text"
            notice.save()
    with audited(ACTOR, "test setup"):  # the last case as a refresh leaves it
        store_work_notices([works[4].pk], timezone.now())
    return [w.pk for w in works]


def _state(work_id: int, now: datetime | None = None) -> tuple[Any, ...]:
    """Return the observation's revision, its notice's fields and whether `now` wrote it."""
    observation = Observation.objects.select_related("standing_notice").get(cited_work_id=work_id)
    notice = getattr(observation, "standing_notice", None)
    fields = ("state", "reason", "observation_text", "events", "source_receipts", "origin")
    return (
        observation.revision,
        None if notice is None else tuple(getattr(notice, f) for f in fields),
        notice is not None and notice.refreshed_at == now,
    )


def test_sql_and_python_store_the_same_notices_and_revisions() -> None:
    in_sql, in_python = _prepare("x"), _prepare("y")
    before = {w: _state(w) for w in in_sql + in_python}
    now = timezone.now()
    with audited(ACTOR, "recompute"):
        changed, seen = store_work_notices(in_sql, now)
        observations = Observation.objects.filter(cited_work_id__in=in_python)
        python_changed, python_seen = store_computed_notices(
            locked_with_notices(observations), now, bump_revision=True
        )

    assert (sum(changed.values()), sum(seen.values())) == (python_changed, python_seen) == (2, 5)
    # The record's import said "measured, no event" too: receipt times alone are no change.
    bumped = {"no notice", "state differs"}
    for case, x, y in zip(CASES, in_sql, in_python, strict=True):
        assert _state(x, now) == _state(y, now), case
        revision, fields, written = _state(x, now)
        assert revision == before[x][0] + (case in bumped), case
        assert fields[-1] == Origin.COMPUTED, case
        assert written == (case != "unchanged"), case  # nothing differed: not written
