"""Every curator decision on a resolver verdict is a label: the verdict as the curator saw it
(step, state, calibrated probability and its band, the linked work) and what they made of it
(confirmed, or overturned: relinked, unlinked, no canonical record).

A label row is written by the decision itself, in its transaction (curation.services
.observations.write_decision calls `verdict_seen` before it writes and `verdict_label` after):
reading labels back out of history at whole-arXiv scale would mean joining millions of events on
every page view. Decisions on what a curator or an imported record decided are not labels: only
the resolver's own verdicts (origin "computed") are measured.

A decision on an observation that sits in an open sample (curation.resolution.services.sampling)
checks that sample item too, and its label counts as "checked because sampled".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from curation.audit import Actor
from curation.models import Observation
from curation.resolution import calibration
from curation.resolution.models import LabelOutcome, LabelWhy, LinkSampleItem, VerdictLabel
from curation.resolution.precision import band_of
from curation.states import VERIFIED_STATUSES, Origin, ResolverSource


@dataclass(frozen=True)
class SeenVerdict:
    """A resolver verdict as a curator saw it, taken before their decision changes it."""

    observation_id: Any
    step: str
    status: str
    resolver_source: str | None
    resolver_version: str
    probability: float | None
    band: str
    targets: frozenset[str]  # "arxiv:<id>" and "doi:<doi>" the verdict linked (empty: none)
    features: list[float] | None

    @property
    def linked(self) -> str:
        """Return the linked work as shown: its arXiv id, else its DOI, else ""."""
        for prefix in ("arxiv:", "doi:"):
            found = sorted(t for t in self.targets if t.startswith(prefix))
            if found:
                return ("arXiv:" if prefix == "arxiv:" else "doi:") + found[0].split(":", 1)[1]
        return ""


def link_targets(
    status: str, resolver_source: str | None, cited_arxiv_id: str | None, work_doi: str | None
) -> frozenset[str]:
    """Return what a verified link names: its arXiv paper, and its DOI when linked by DOI.

    Two links are the same work when they share one of these (a DOI linked to the arXiv paper
    that carries it is the same work as that paper).
    """
    if status not in VERIFIED_STATUSES:
        return frozenset()
    found = set()
    if cited_arxiv_id:
        found.add(f"arxiv:{cited_arxiv_id}")
    if resolver_source == ResolverSource.DOI and work_doi:
        found.add(f"doi:{work_doi.lower()}")
    return frozenset(found)


def verdict_seen(observation: Observation) -> SeenVerdict | None:
    """Return the resolver verdict the observation holds, or None when it holds none (a
    curator's decision, an imported record's, or nothing resolved yet)."""
    resolution = getattr(observation, "resolution", None)
    if resolution is None or resolution.origin != Origin.COMPUTED:
        return None
    cited = observation.cited_paper
    return seen_from(
        observation.pk, status=resolution.status, resolver_source=resolution.resolver_source,
        resolver_version=resolution.resolver_version, evidence=resolution.evidence,
        cited_arxiv_id=cited.arxiv_id if cited else None, work_doi=observation.work_doi,
    )  # fmt: skip


def seen_from(
    observation_id: Any,
    *,
    status: str,
    resolver_source: str | None,
    resolver_version: str,
    evidence: Any,
    cited_arxiv_id: str | None,
    work_doi: str | None,
) -> SeenVerdict:
    """Return a resolver verdict as a curator saw it, from its stored columns (the row's, or a
    history event's)."""
    evidence = evidence if isinstance(evidence, dict) else {}
    step = str(evidence.get("step") or "")
    found = evidence.get("matched")
    matched: dict[str, Any] = found if isinstance(found, dict) else {}
    raw = matched.get("probability") if step == "string" else None
    probability = float(raw) if isinstance(raw, int | float) else None
    features = (
        calibration.features(matched, evidence.get("candidates") or [])
        if probability is not None
        else None
    )
    return SeenVerdict(
        observation_id=observation_id,
        step=step,
        status=status,
        resolver_source=resolver_source,
        resolver_version=resolver_version or str(evidence.get("resolver_version") or ""),
        probability=probability,
        band=band_of(step, probability),
        targets=link_targets(status, resolver_source, cited_arxiv_id, work_doi),
        features=features,
    )


def outcome_of(seen: SeenVerdict, *, targets: frozenset[str], no_match: bool) -> str:
    """Return what the decision made of the verdict.

    A link is confirmed when the decision links the same work; overturned when it links
    another (relinked), marks the reference as having no canonical record (no_match), or
    leaves it unlinked. A verdict that linked nothing is confirmed when the decision links
    nothing either, and overturned (relinked) when the curator found the work it missed.
    """
    if seen.targets:
        if targets:
            return LabelOutcome.CONFIRMED if targets & seen.targets else LabelOutcome.RELINKED
        return LabelOutcome.NO_MATCH if no_match else LabelOutcome.UNLINKED
    return LabelOutcome.RELINKED if targets else LabelOutcome.CONFIRMED


def verdict_label(
    seen: SeenVerdict,
    *,
    targets: frozenset[str],
    no_match: bool,
    action: str,
    actor: Actor,
    now: datetime,
    item: LinkSampleItem | None = None,
) -> VerdictLabel:
    """Write the label of a decision on a resolver verdict (inside the decision's transaction),
    and check the sample item it was decided from, else the observation's open one, if any."""
    outcome = outcome_of(seen, targets=targets, no_match=no_match)
    if item is None:
        item = (
            LinkSampleItem.objects.select_for_update()
            .filter(observation_id=seen.observation_id, checked_at__isnull=True)
            .order_by("pk")
            .first()
        )
    if item is not None:
        item.checked_at = now
        item.outcome = outcome
        item.save(update_fields=["checked_at", "outcome"])
    return VerdictLabel.objects.create(
        observation_id=seen.observation_id,
        step=seen.step,
        status=seen.status,
        resolver_source=seen.resolver_source,
        resolver_version=seen.resolver_version,
        probability=seen.probability,
        band=seen.band,
        linked=seen.linked,
        features=seen.features,
        outcome=outcome,
        why=LabelWhy.SAMPLED if item is not None else LabelWhy.QUEUE,
        sample_item=item,
        action=action,
        actor=actor.name,
        decided_at=now,
    )
