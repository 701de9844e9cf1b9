"""Accepting the resolver's proposal: unpin, then let the resolver write its verdict.

The proposal itself (what the resolver would decide now, shown before anything is decided) is
a read: `curation.resolution.selectors.propose`.
"""

from __future__ import annotations

from django.db import transaction

from curation.audit import Actor, audited
from curation.models import Observation
from curation.resolution.services.verdicts import observations_resolve

from .observations import observation_unpin


@transaction.atomic
def accept_proposal(
    *, observation: Observation, expected_revision: int, actor: Actor, reason: str
) -> Observation:
    """Unpin the observation and write the resolver's verdict (accepting a proposal unpins)."""
    with audited(actor, reason):  # one history context for the unpin and the verdict
        current = observation_unpin(
            observation=observation, expected_revision=expected_revision, actor=actor, reason=reason
        )
        outcome = observations_resolve(observations=[current], actor=actor, reason=reason)
    if outcome.failed:
        raise RuntimeError("; ".join(outcome.errors or ["the resolver failed"]))
    return Observation.objects.get(pk=current.pk)
