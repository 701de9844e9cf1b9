"""A sample of automatic links for curators to check, so the resolver's precision is measured
on links nobody doubted too, not only on those that came to curators by failing.

`link_sample_draw` draws up to N links per band of calibrated probability (a link without one:
its step's own band), reproducibly from a seed, and keeps each band's size at the draw (the
stratified estimate's weights). The sample is a queue curators walk in the admin ("Links to
check"); `sampled_link_confirm` is its one-keystroke decision: the link is right. Overturning
one is any decision on the observation page; its label checks the sample item too
(curation.resolution.services.labels).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from curation.audit import Actor, audited
from curation.resolution.models import LinkSample, LinkSampleItem, VerdictLabel
from curation.resolution.selectors import automatic_link_bands, automatic_links_drawn
from curation.resolution.services.labels import verdict_label, verdict_seen

from .observations import CurationError, lock

MAX_PER_BAND = 1000
MAX_SEED_CHARS = 64
CONFIRM_REASON = "sampled link checked: right"


@transaction.atomic
def link_sample_draw(*, per_band: int, seed: str, actor: Actor, reason: str) -> LinkSample:
    """Draw up to `per_band` automatic links of each band and store them as a sample to check.

    The same seed over the same links draws the same links (curation.resolution.selectors
    .automatic_links_drawn). Refuses a size outside 1..MAX_PER_BAND or an empty seed.
    """
    if not 1 <= per_band <= MAX_PER_BAND:
        raise CurationError(f"links per band must be 1 to {MAX_PER_BAND}, not {per_band}")
    seed = seed.strip()
    if not seed or len(seed) > MAX_SEED_CHARS:
        raise CurationError(f"the seed must be 1 to {MAX_SEED_CHARS} characters")
    if not reason.strip():
        raise CurationError("a reason is needed")
    strata = automatic_link_bands()
    drawn = automatic_links_drawn(seed=seed, per_band=per_band)
    sample = LinkSample.objects.create(
        drawn_at=timezone.now(), seed=seed, per_band=per_band, strata=strata,
        actor=actor.name, reason=reason,
    )  # fmt: skip
    LinkSampleItem.objects.bulk_create(
        LinkSampleItem(
            sample=sample,
            observation_id=row["observation_id"],
            band=row["band"],
            step=row["p_step"] or "",
            status=row["status"],
            probability=row["p_value"],
            linked=_linked(row["observation__cited_paper__arxiv_id"], row["observation__work_doi"]),
            position=position,
        )
        for position, row in enumerate(drawn)
    )
    return sample


def _linked(arxiv_id: str | None, doi: str | None) -> str:
    return f"arXiv:{arxiv_id}" if arxiv_id else (f"doi:{doi}" if doi else "")


@transaction.atomic
def sampled_link_confirm(
    *, item: LinkSampleItem, expected_revision: int, actor: Actor, reason: str = CONFIRM_REASON
) -> VerdictLabel:
    """Confirm a sampled link: the resolver was right. Pins the observation (a curator has now
    decided it, so a later run leaves it) and writes the label.

    Refused when the link was checked already, when the observation changed since the revision
    the curator saw (StaleRevision), or when it no longer holds the resolver's verdict.
    """
    with audited(actor, reason):
        current_item = LinkSampleItem.objects.select_for_update().get(pk=item.pk)
        if current_item.checked_at is not None:
            raise CurationError(
                f"this link was checked already ({current_item.get_outcome_display()})"
            )
        observation = lock(current_item.observation_id, expected_revision)
        seen = verdict_seen(observation)
        if seen is not None and not seen.targets:
            raise CurationError(
                f"the resolver no longer links this reference (it is {seen.status} now): "
                "open the reference to decide"
            )
        if seen is None:
            raise CurationError(
                "the reference no longer holds the resolver's verdict (a curator or an import "
                "decided it since): open the reference to see what it holds"
            )
        observation.pinned = True
        observation.revision += 1
        observation.save(update_fields=["pinned", "revision"])
        return verdict_label(
            seen, targets=seen.targets, no_match=False, action="confirm_link", actor=actor,
            now=timezone.now(), revision=observation.revision, item=current_item,
        )  # fmt: skip
