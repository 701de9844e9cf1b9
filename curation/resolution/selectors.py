"""Reads for resolution: which observations a run covers, which runs have stalled; what the
resolver reads from an observation, and what it would decide now (a proposal, nothing written)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db.models import (
    Case,
    CharField,
    Count,
    F,
    FloatField,
    Func,
    Max,
    Q,
    QuerySet,
    Value,
    When,
    Window,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import (
    MD5,
    Cast,
    Coalesce,
    Concat,
    Greatest,
    NullIf,
    RowNumber,
)
from django.utils import timezone

from curation.models import Observation, ObservationListing, Resolution
from curation.references import parse_reference
from curation.references.stored import parse_from_stored
from curation.resolution.candidates import CandidateView, candidates_from_evidence, score_0_100
from curation.resolution.models import (
    LabelOutcome,
    LabelWhy,
    LinkSample,
    LinkSampleItem,
    ResolutionChunk,
    ResolutionRun,
    RunStatus,
    VerdictLabel,
)
from curation.resolution.precision import (
    EDGES,
    Estimate,
    Stratum,
    band_order,
    strata_from,
    stratified,
    wilson,
)
from curation.resolution.resolver import ReferenceInput, resolve_inputs
from curation.states import VERIFIED_STATUSES, Origin, ResolutionStatus

# What a grown catalogue may now resolve (the re-queue after a catalogue import).
RETRY_STATES = (ResolutionStatus.UNRESOLVED, ResolutionStatus.MALFORMED_IDENTIFIER)


def select_observations(
    *, paper_id: str | None = None, state: str | None = None, everything: bool = False
) -> QuerySet[Observation]:
    """Return the observations a run covers (never retired ones)."""
    queryset = Observation.objects.filter(retired_at__isnull=True)
    if paper_id:
        queryset = queryset.filter(paper__arxiv_id=paper_id)
    if state:
        if state == "never_resolved":
            queryset = queryset.filter(resolution__isnull=True)
        else:
            queryset = queryset.filter(resolution__status=state)
    if not (paper_id or state or everything):
        raise ValueError("choose a paper, a state, or everything")
    return queryset.order_by("pk")


def stale_runs(*, minutes: float) -> list[int]:
    """Return unfinished runs (queued or running) that nothing has touched for `minutes`.

    Touched: queued (dispatched), or one of its chunks taken or finished by a worker.
    """
    since = timezone.now() - timedelta(minutes=minutes)
    return list(
        ResolutionRun.objects.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING])
        .filter(Q(dispatched_at__lt=since) | Q(dispatched_at__isnull=True), created_at__lt=since)
        .annotate(touched=Greatest(Max("chunks__started_at"), Max("chunks__done_at")))
        .filter(Q(touched__lt=since) | Q(touched__isnull=True))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def retry_candidates() -> QuerySet[Observation]:
    """Return unpinned observations a grown catalogue may now resolve."""
    return Observation.objects.filter(
        Q(resolution__status__in=RETRY_STATES) | Q(resolution__isnull=True),
        retired_at__isnull=True,
        pinned=False,
    ).order_by("pk")


def run_by_pk(run_id: int) -> ResolutionRun | None:
    """Return the resolution run of this id, or None."""
    return ResolutionRun.objects.filter(pk=run_id).first()


def chunks_by_pk(chunk_ids: Sequence[int]) -> QuerySet[ResolutionChunk]:
    """Return these chunks in the order they were cut."""
    return ResolutionChunk.objects.filter(pk__in=list(chunk_ids)).order_by("number")


@dataclass
class Prepared:
    """An observation with the input read from it and the parse, when it has raw text."""

    observation: Observation
    item: ReferenceInput
    parsed_title: str | None = None
    parsed_year: int | None = None
    parsed_venue: str | None = None


def listings_of(observations: Sequence[Observation]) -> dict[Any, ObservationListing]:
    """Return what their reference lists said of these observations, by observation id, in
    one statement (imported ones, and those listed before listings were kept, have none)."""
    pks = [o.pk for o in observations if o.raw_text is not None]
    if not pks:
        return {}
    rows = ObservationListing.objects.filter(observation__in=pks).only("stated", "parse")
    return {row.observation_id: row for row in rows}


def observation_prepared(
    observation: Observation, listing: ObservationListing | None = None
) -> Prepared:
    """Return the observation with the resolver's input read from it: from raw text, its parse
    stored at import (parsed again when there is none from this parser) and the identifiers
    its list states (`listing`); else its cited_work fields."""
    if observation.raw_text is not None:
        raw = observation.raw_text
        parsed = parse_from_stored(raw, listing.parse) if listing is not None else None
        if parsed is None:
            parsed = parse_reference(raw)
        stated = listing.stated if listing is not None else {}
        item = ReferenceInput.from_parse(
            parsed, stated_doi=stated.get("doi"), stated_arxiv_id=stated.get("arxiv_id")
        )
        return Prepared(
            observation,
            item,
            parsed.title if parsed.title_usable else None,
            parsed.year,
            parsed.venue,
        )
    item = ReferenceInput.from_cited_work(
        title=observation.work_title,
        year=observation.work_year,
        venue=observation.work_venue,
        # What the imported record said, never the link citerec or a curator wrote since
        # (work_doi / work_pith_arxiv_id): a verdict must not read itself back as evidence.
        doi=observation.imported_doi,
        arxiv_id=observation.work_arxiv_id,
        pith_arxiv_id=observation.imported_pith_arxiv_id,
    )
    return Prepared(observation, item)


def observation_input(observation: Observation) -> ReferenceInput:
    """Return what the resolver reads from an observation (raw text, else its cited_work)."""
    return observation_prepared(observation, listings_of([observation]).get(observation.pk)).item


@dataclass
class Proposal:
    """What the resolver would decide now, shown to the curator before anything is written."""

    status: str
    resolver_source: str
    arxiv_id: str | None
    doi: str | None
    score: int | None  # 0-100 (candidates.score_0_100)
    decision: str
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def candidates(self) -> list[CandidateView]:
        """Return the proposal's ranked candidates."""
        return candidates_from_evidence(self.evidence)


def propose(observation: Observation) -> Proposal:
    """Return the resolver's verdict for the observation as it is now.

    Nothing is written. Online, the resolver may ask Crossref about a DOI the reference names;
    the answer informs this proposal only (accepting it resolves again, and keeps the answer).
    """
    verdict = resolve_inputs([observation_input(observation)])[0]
    return Proposal(
        status=verdict.status.value,
        resolver_source=verdict.resolver_source.value,
        arxiv_id=verdict.arxiv_id,
        doi=verdict.doi,
        score=score_0_100(verdict.score),
        decision=str(verdict.evidence.get("decision", "")),
        evidence=verdict.evidence,
    )


def stored_disagreement(observation: Observation) -> Any:
    """Return the resolver's stored verdict that differs from the curator's pin, if any."""
    return getattr(observation, "resolver_disagreement", None)


# --- The resolver measured by its curators (issue 41 item 3) ---------------------------------


def _band_expression() -> Any:
    """Return SQL for precision.band_of(evidence.step, evidence.matched.probability): the same
    band names, computed in the database so a million links are counted without being read."""
    step = KeyTextTransform("step", "evidence")
    probability = Cast(
        KeyTextTransform("probability", KeyTextTransform("matched", "evidence")), FloatField()
    )
    # One lookup of the edges (width_bucket) rather than a WHEN per band: each WHEN would
    # extract the probability from the evidence again.
    names = ", ".join(f"'{low:.2f}–{high:.2f}'" for low, high in zip(EDGES, EDGES[1:], strict=False))
    inner = ", ".join(str(edge) for edge in EDGES[1:-1])
    by_edges = Func(
        F("p_value"),
        template=f"(ARRAY[{names}])[width_bucket(%(expressions)s, ARRAY[{inner}]::float8[]) + 1]",
        output_field=CharField(),
    )
    no_probability = Concat(
        Value("no probability ("),
        Coalesce(NullIf(step, Value("")), Value("no step"), output_field=CharField()),
        Value(")"),
        output_field=CharField(),
    )  # fmt: skip
    return (
        {"p_step": step, "p_value": Case(When(p_step="string", then=probability), default=None)},
        Case(When(p_value__isnull=True, then=no_probability), default=by_edges,
             output_field=CharField()),
    )  # fmt: skip


def automatic_links() -> QuerySet[Any]:
    """Return the resolver's live automatic links (verified, not decided by a curator), each
    with its band (`band`), step (`p_step`) and probability (`p_value`)."""
    fields, band = _band_expression()
    return (
        Resolution.objects.filter(
            origin=Origin.COMPUTED,
            status__in=VERIFIED_STATUSES,
            observation__retired_at__isnull=True,
            observation__no_canonical_record=False,
            observation__pinned=False,
        )
        .annotate(**fields)
        .annotate(band=band)
    )


def automatic_link_bands() -> dict[str, int]:
    """Return how many automatic links each band holds (one scan, counted in the database)."""
    rows = automatic_links().values("band").annotate(links=Count("pk")).order_by()
    return {row["band"]: row["links"] for row in rows}


def automatic_links_drawn(*, seed: str, per_band: int) -> list[dict[str, Any]]:
    """Return up to `per_band` automatic links of each band, drawn reproducibly: each link's
    place is md5(seed, observation id), so the same seed over the same links draws the same
    ones, and another seed an independent sample. Each row: observation, band, step, status,
    probability and the linked work (arXiv id, else DOI)."""
    place = MD5(
        Concat(Value(f"{seed}:"), Cast("observation_id", CharField()), output_field=CharField())
    )
    ranked = automatic_links().annotate(
        place=place,
        rank=Window(RowNumber(), partition_by=[F("band")], order_by=[F("place").asc()]),
    )
    # Rank on the resolution row alone; the linked work is read for the drawn links only.
    drawn = {r["observation_id"]: r for r in ranked.filter(rank__lte=per_band).values(
        "observation_id", "band", "p_step", "status", "p_value", "resolver_source", "place",
    )}  # fmt: skip
    linked = Observation.objects.filter(pk__in=list(drawn)).values_list(
        "pk", "cited_paper__arxiv_id", "work_doi"
    )
    for pk, arxiv_id, doi in linked:
        drawn[pk].update({"observation__cited_paper__arxiv_id": arxiv_id,
                          "observation__work_doi": doi})  # fmt: skip
    return sorted(drawn.values(), key=lambda r: (r["band"], r["place"]))


def link_sample_latest() -> Any:
    """Return the latest drawn sample of automatic links, or None."""
    return LinkSample.objects.first()


def link_sample_items_open(sample_id: int | None = None) -> QuerySet[Any]:
    """Return the sampled links nobody has checked yet, in walk order (a sample's, or all)."""
    items = LinkSampleItem.objects.filter(checked_at__isnull=True).select_related(
        "observation", "observation__paper", "observation__resolution", "sample"
    )
    if sample_id is not None:
        items = items.filter(sample_id=sample_id)
    return items.order_by("sample_id", "position")


def link_sample_item(item_id: int) -> Any:
    """Return a sampled link with its observation and verdict, or None."""
    return (
        LinkSampleItem.objects.select_related(
            "observation", "observation__paper", "observation__resolution",
            "observation__cited_paper", "sample",
        )  # fmt: skip
        .filter(pk=item_id)
        .first()
    )


def link_sample_item_after(item: Any) -> Any:
    """Return the next unchecked link of the same sample after `item` in walk order, wrapping
    to the first one left; None when the sample is all checked."""
    items = link_sample_items_open(item.sample_id).exclude(pk=item.pk)
    return items.filter(position__gt=item.position).first() or items.first()


@dataclass
class PrecisionRow:
    """One line of the precision tables: what it groups, and its estimate."""
    why: str
    group: dict[str, str]
    estimate: Estimate


@dataclass
class ResolverPrecision:
    """The resolver measured by its curators: per step and state, per band, and overall."""
    by_step_state: list[PrecisionRow]
    by_band: list[PrecisionRow]
    came_to_curators: Estimate  # over every label of the queue
    sampled_checked: Estimate  # over every sampled label, unweighted
    sampled_stratified: Estimate  # bands weighted by their links
    sample: LinkSample | None
    strata: list[Stratum]  # of the latest sample


def _label_counts(*group: str) -> list[dict[str, Any]]:

    overturned = Count("pk", filter=~Q(outcome=LabelOutcome.CONFIRMED))
    return list(
        VerdictLabel.objects.values("why", *group)
        .annotate(checked=Count("pk"), overturned=overturned)
        .order_by()
    )


def resolver_precision() -> ResolverPrecision:
    """Return how many verdicts curators checked and overturned, and the estimated precision
    with its Wilson interval: per (step, state) and per band, for the sampled links and for
    those that came to curators apart; overall, the stratified estimate over the latest
    sample's bands (weighted by the links each band held when drawn) beside the plain share
    of what came to curators. Three grouped counts over the label table, whatever its size."""
    def rows(*group: str) -> list[PrecisionRow]:
        found = [
            PrecisionRow(r["why"], {g: r[g] for g in group}, wilson(r["checked"], r["overturned"]))
            for r in _label_counts(*group)
        ]
        key = (lambda r: (r.why, band_order(r.group["band"]))) if group == ("band",) else (
            lambda r: (r.why, *r.group.values()))  # fmt: skip
        return sorted(found, key=key)

    by_band = rows("band")
    totals: dict[str, list[int]] = {}
    for row in by_band:
        total = totals.setdefault(row.why, [0, 0])
        total[0] += row.estimate.checked
        total[1] += row.estimate.overturned
    sample = link_sample_latest()
    sampled = {r.group["band"]: (r.estimate.checked, r.estimate.overturned)
               for r in by_band if r.why == LabelWhy.SAMPLED}  # fmt: skip
    strata = strata_from(sample.strata, sampled) if sample is not None else []
    return ResolverPrecision(
        by_step_state=rows("step", "status"),
        by_band=by_band,
        came_to_curators=wilson(*totals.get(LabelWhy.QUEUE, [0, 0])),
        sampled_checked=wilson(*totals.get(LabelWhy.SAMPLED, [0, 0])),
        sampled_stratified=stratified(strata),
        sample=sample,
        strata=strata,
    )


def verdict_labels_for_fitting() -> QuerySet[Any]:
    """Return the labels of whole-string links, with their features and outcome (for
    `bench/calibrate.py --from-labels`)."""
    return (
        VerdictLabel.objects.filter(features__isnull=False)
        .values_list("features", "outcome", "why", "probability")
        .order_by("pk")
    )
