"""Every curator decision on a resolver verdict is a label: the verdict as the curator saw it
(step, state, calibrated probability and its band, the linked work) and what they made of it
(confirmed, or overturned: relinked, unlinked, no canonical record).

A label row is written by the decision itself, in its transaction (curation.services
.observations.write_decision calls `verdict_seen` before it writes and `verdict_label` after):
reading labels back out of history at whole-arXiv scale would mean joining millions of events on
every page view. Decisions on what a curator or an imported record decided are not labels: only
the resolver's own verdicts (origin "computed") are measured.

A decision on an observation that sits in an open sample (curation.services.link_samples)
checks that sample item too, and its label counts as "checked because sampled".

Decisions made before labels were written are labelled from history once
(`verdict_labels_backfill`, `manage.py backfill_verdict_labels`), with the same rules
(`seen_from`, `link_targets`, `outcome_of`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.postgres.functions import TransactionNow
from django.db import transaction
from django.db.models import OuterRef, Subquery

from curation.audit import Actor
from curation.history import event_model
from curation.models import Observation, Paper
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
    revision: int,
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
    label = VerdictLabel.objects.create(
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
        # The database's transaction time, as the decision's history events carry: the
        # backfill tells decisions that wrote their label from older ones by it.
        decided_at=TransactionNow(),
        revision=revision,
    )
    label.refresh_from_db(fields=["decided_at"])
    return label


BACKFILL_BATCH = 2000


def verdict_labels_backfill(*, batch: int = BACKFILL_BATCH) -> int:
    """Write the labels of curator decisions made before decisions wrote them, from history.

    A decision is a curator's resolution event (evidence "decided_by": "curator") whose
    previous resolution event held the resolver's verdict; what the verdict linked is read from
    the observation's version just before the decision, what the decision linked from the
    version it wrote. Only decisions older than the first label written live are read (the
    later ones wrote theirs), each once (`backfilled_from` is unique): run it again after a
    stop and it goes on. Returns the labels written. Each batch is its own transaction.
    """
    resolutions = event_model("Resolution")
    observations = event_model("Observation")
    first_live = (
        VerdictLabel.objects.filter(backfilled_from__isnull=True)
        .order_by("decided_at")
        .values_list("decided_at", flat=True)
        .first()
    )
    before = resolutions.objects.filter(
        pgh_obj_id=OuterRef("pgh_obj_id"), pgh_id__lt=OuterRef("pgh_id")
    ).order_by("-pgh_id")
    written_by = observations.objects.filter(
        pgh_obj_id=OuterRef("pgh_obj_id"), pgh_context_id=OuterRef("pgh_context_id")
    ).order_by("-pgh_id")
    decisions = (
        resolutions.objects.filter(origin=Origin.CURATOR, evidence__decided_by="curator")
        .exclude(pgh_label="delete")
        .annotate(
            verdict_id=Subquery(before.values("pgh_id")[:1]),
            verdict_origin=Subquery(before.values("origin")[:1]),
            verdict_label=Subquery(before.values("pgh_label")[:1]),
            decided_version=Subquery(written_by.values("pgh_id")[:1]),
        )
        .filter(verdict_origin=Origin.COMPUTED)
        .exclude(verdict_label="delete")
        # The observation as the curator saw it: its version before the one the decision wrote.
        .annotate(seen_version=Subquery(
            observations.objects.filter(
                pgh_obj_id=OuterRef("pgh_obj_id"), pgh_id__lt=OuterRef("decided_version")
            ).order_by("-pgh_id").values("pgh_id")[:1]
        ))
    )  # fmt: skip
    if first_live is not None:
        decisions = decisions.filter(pgh_created_at__lt=first_live)
    done = set(
        VerdictLabel.objects.filter(backfilled_from__isnull=False).values_list(
            "backfilled_from", flat=True
        )
    )
    written, after = 0, 0
    while True:
        rows = list(decisions.filter(pgh_id__gt=after).order_by("pgh_id")[:batch])
        if not rows:
            return written
        after = rows[-1].pgh_id
        fresh = [r for r in rows if r.pgh_id not in done]
        if fresh:
            written += _backfill(fresh, resolutions, observations)


@transaction.atomic
def _backfill(decisions: list[Any], resolutions: Any, observations: Any) -> int:
    """Write the labels of a batch of decisions (see verdict_labels_backfill)."""
    verdicts = resolutions.objects.in_bulk([d.verdict_id for d in decisions], field_name="pgh_id")
    versions = observations.objects.in_bulk(
        [v for d in decisions for v in (d.decided_version, d.seen_version) if v],
        field_name="pgh_id",
    )
    paper_ids = {e.cited_paper_id for e in versions.values()}
    arxiv_ids = dict(
        Paper.objects.filter(pk__in=paper_ids - {None}).values_list("pk", "arxiv_id")
    )
    labels = []
    for d in decisions:
        verdict, version = verdicts.get(d.verdict_id), versions.get(d.decided_version)
        before = versions.get(d.seen_version)
        if verdict is None or version is None or before is None:
            continue  # the history lacks a version: no label is better than a guessed one
        seen = seen_from(
            d.pgh_obj_id, status=verdict.status, resolver_source=verdict.resolver_source,
            resolver_version=verdict.resolver_version, evidence=verdict.evidence,
            cited_arxiv_id=arxiv_ids.get(before.cited_paper_id), work_doi=before.work_doi,
        )  # fmt: skip
        evidence = d.evidence if isinstance(d.evidence, dict) else {}
        action = str(evidence.get("action") or "")
        targets = link_targets(
            d.status, d.resolver_source, arxiv_ids.get(version.cited_paper_id), version.work_doi
        )
        no_match = action == "no_canonical_record"
        labels.append(VerdictLabel(
            observation_id=d.pgh_obj_id, step=seen.step, status=seen.status,
            resolver_source=seen.resolver_source, resolver_version=seen.resolver_version,
            probability=seen.probability, band=seen.band, linked=seen.linked,
            features=seen.features, outcome=outcome_of(seen, targets=targets, no_match=no_match),
            why=LabelWhy.QUEUE, action=action, actor=str(evidence.get("actor") or ""),
            decided_at=d.pgh_created_at, revision=version.revision, backfilled_from=d.pgh_id,
        ))  # fmt: skip
    VerdictLabel.objects.bulk_create(labels, ignore_conflicts=True)
    return len(labels)


def verdict_labels_withdraw(*, observation_id: Any, after_revision: int) -> int:
    """Withdraw the labels of the decisions a revert or undo took back (those that made a
    revision after the one it restores), and open their sampled links again: a decision the
    curator undid is no judgement of the resolver. Returns the labels withdrawn. Inside the
    revert's transaction.
    """
    labels = VerdictLabel.objects.filter(
        observation_id=observation_id, revision__gt=after_revision
    )
    items = [i for i in labels.values_list("sample_item_id", flat=True) if i is not None]
    if items:
        LinkSampleItem.objects.filter(pk__in=items).update(checked_at=None, outcome="")
    return int(labels.delete()[0])
