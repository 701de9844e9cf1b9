"""Resolution writes: verdicts into observations (SPEC §2's table), runs, disagreements."""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import Max, Q, QuerySet
from django.db.models.functions import Greatest
from django.utils import timezone

from curation.audit import Actor, audited
from curation.bulk_sql import insert_rows, update_rows
from curation.models import CitedWork, Observation, Paper, Resolution
from curation.notices.follow import (
    locked_with_notices,
    standing_notices_follow,
    standing_notices_follow_links,
)
from curation.references import parse_reference
from curation.resolution.models import (
    PinnedDisagreement,
    ResolutionChunk,
    ResolutionRun,
    RunStatus,
)
from curation.resolution.resolver import (
    RESOLVER_VERSION,
    ReferenceInput,
    Verdict,
    resolve_inputs,
)
from curation.services.works import work_for_doi, work_for_paper
from curation.states import Origin, ResolutionStatus, ResolverSource

log = logging.getLogger(__name__)

CHUNK_SIZE = 250
MAX_RUN_ERRORS = 50
CHANGED, UNCHANGED, PINNED = "changed", "unchanged", "pinned"
RETRY_STATES = (ResolutionStatus.UNRESOLVED, ResolutionStatus.MALFORMED_IDENTIFIER)
# Errors that say the database cannot be used right now (connection lost, server restarting,
# deadlock): the whole chunk is retried later, never counted as failed items.
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)


@dataclass
class Prepared:
    """An observation with the input read from it and the parse, when it has raw text."""

    observation: Observation
    item: ReferenceInput
    parsed_title: str | None = None
    parsed_year: int | None = None
    parsed_venue: str | None = None


def _prepare(observation: Observation) -> Prepared:
    if observation.raw_text is not None:
        parsed = parse_reference(observation.raw_text)
        return Prepared(
            observation,
            ReferenceInput.from_parse(parsed),
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
    return _prepare(observation).item


class _Links:
    """The papers and canonical works a batch of verdicts links to, fetched together."""

    def __init__(
        self,
        verdicts: Sequence[Verdict],
        observation_ids: Sequence[Any] = (),
        locked: Sequence[Observation] | None = None,
    ) -> None:
        # The batch's observations locked, with their resolutions and notices, in one statement
        # (or already so by the caller: `locked`).
        if locked is None:
            locked = list(_locked(Observation.objects.filter(pk__in=observation_ids)))
        self.observations = {o.pk: o for o in locked}
        self.resolutions = {
            o.pk: o.resolution for o in locked if getattr(o, "resolution", None) is not None
        }
        arxiv_ids = {v.arxiv_id for v in verdicts if v.verified and v.arxiv_id}
        papers = Paper.objects.filter(arxiv_id__in=arxiv_ids).only("id", "arxiv_id", "doi", "title")
        self.papers = {p.arxiv_id: p for p in papers}
        dois = {v.doi for v in verdicts if v.verified and v.doi}
        dois |= {p.doi.lower() for p in self.papers.values() if p.doi}
        self.by_doi: dict[str, CitedWork] = {}
        self.by_arxiv: dict[str, CitedWork] = {}
        self._read_works(dois, arxiv_ids)
        self._create_missing_works(verdicts)

    def _read_works(self, dois: Collection[str], arxiv_ids: Collection[str]) -> None:
        """Read the canonical works of these DOIs and arXiv ids in one statement."""
        if not dois and not arxiv_ids:
            return
        for work in CitedWork.objects.filter(Q(doi__in=dois) | Q(arxiv_id__in=arxiv_ids)):
            if work.doi is not None and work.doi in dois:
                self.by_doi[work.doi] = work
            if work.arxiv_id is not None and work.arxiv_id in arxiv_ids:
                self.by_arxiv[work.arxiv_id] = work

    def _create_missing_works(self, verdicts: Sequence[Verdict]) -> None:
        """Create the batch's new canonical works in one statement (not one per observation)."""
        new: dict[tuple[str, str], str] = {}
        for verdict in verdicts:
            paper = self.paper(verdict)
            doi = verdict.doi or (paper.doi.lower() if paper and paper.doi else None)
            if doi and doi not in self.by_doi:
                new[("doi", doi)] = _title(verdict)
            elif not doi and paper is not None and paper.arxiv_id not in self.by_arxiv:
                new[("arxiv_id", paper.arxiv_id)] = paper.title
        if not new:
            return
        CitedWork.objects.bulk_create(
            [CitedWork(**{kind: value}, title=title) for (kind, value), title in new.items()],
            ignore_conflicts=True,  # another worker may have created one meanwhile
        )
        self._read_works(
            {value for kind, value in new if kind == "doi"},
            {value for kind, value in new if kind == "arxiv_id"},
        )

    def paper(self, verdict: Verdict) -> Paper | None:
        """Return the arXiv paper a verified verdict links to."""
        return self.papers.get(verdict.arxiv_id or "") if verdict.verified else None

    def work(self, verdict: Verdict, paper: Paper | None) -> CitedWork | None:
        """Return the canonical work notices hang off: the DOI first, else the arXiv id."""
        if not verdict.verified:
            return None
        doi = verdict.doi or (paper.doi.lower() if paper and paper.doi else None)
        if doi:
            if doi not in self.by_doi:
                self.by_doi[doi] = work_for_doi(doi, _title(verdict))
            return self.by_doi[doi]
        if paper is None:
            return None
        if paper.arxiv_id not in self.by_arxiv:
            self.by_arxiv[paper.arxiv_id] = work_for_paper(paper)
        return self.by_arxiv[paper.arxiv_id]


def _title(verdict: Verdict) -> str:
    return verdict.linked.title if verdict.linked else ""


def _work_values(prepared: Prepared, verdict: Verdict, paper: Paper | None) -> dict[str, Any]:
    """Return the cited_work columns SPEC §2's table asks for."""
    observation, item = prepared.observation, prepared.item
    linked_arxiv = paper.arxiv_id if paper else None
    if observation.raw_text is None:
        # Imported: the described work stays as imported; only the link columns follow.
        values: dict[str, Any] = {}
        if verdict.verified and linked_arxiv:
            values["work_pith_arxiv_id"] = linked_arxiv
        if verdict.verified and verdict.resolver_source == ResolverSource.DOI and verdict.doi:
            values["work_doi"] = verdict.doi
        return values
    doi = item.dois[0] if item.dois else None
    if verdict.verified and verdict.resolver_source == ResolverSource.DOI:
        doi = verdict.doi
    return {
        "work_described": True,
        "work_title": prepared.parsed_title,
        "work_year": prepared.parsed_year,
        "work_venue": prepared.parsed_venue,
        "work_doi": doi,
        "work_arxiv_id": item.arxiv_ids[0] if item.arxiv_ids else None,
        "work_pith_arxiv_id": linked_arxiv if verdict.verified else None,
        "work_metadata_source": "raw_reference",
    }


def _evidence_core(evidence: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in evidence.items() if k != "crossref"}


@dataclass
class _Pending:
    """Writes gathered over a batch, sent as one statement per table (one history trigger
    firing per statement, instead of two UPDATEs and their triggers per observation)."""

    created: list[Resolution] = field(default_factory=list)
    updated: list[Resolution] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    observation_fields: set[str] = field(default_factory=set)

    def flush(self) -> None:
        """Write everything gathered: one statement per table (Django's bulk_update builds a
        `CASE WHEN` per row and column, quadratic in the batch)."""
        insert_rows(Resolution, self.created)
        update_rows(Resolution, self.updated, _RESOLUTION_FIELDS)
        fields = sorted(self.observation_fields | {"revision", "changed_at"})
        update_rows(Observation, self.observations, fields)


_RESOLUTION_FIELDS = [
    "status",
    "resolver_source",
    "origin",
    "resolver_version",
    "evidence",
    "observed_at",
]


def _apply_verdict(
    prepared: Prepared,
    verdict: Verdict,
    now: datetime,
    links: _Links,
    pending: _Pending | None = None,
) -> str:
    """Write one verdict (or gather it into pending); return whether anything changed."""
    observation = links.observations.get(prepared.observation.pk)
    if observation is None:
        observation = Observation.objects.select_for_update().get(pk=prepared.observation.pk)
    if observation.pinned:
        _store_disagreement(observation, verdict, now)
        return PINNED
    paper = links.paper(verdict)
    work = links.work(verdict, paper)
    values = {
        "cited_paper_id": paper.pk if paper else None,
        "cited_work_id": work.pk if work else None,
        **_work_values(prepared, verdict, paper),
    }
    changed = [name for name, value in values.items() if getattr(observation, name) != value]
    resolution = links.resolutions.get(observation.pk)
    wanted = {
        "status": verdict.status.value,
        "resolver_source": verdict.resolver_source.value,
        "origin": Origin.COMPUTED.value,
        "resolver_version": RESOLVER_VERSION,
    }
    resolution_changed = resolution is None or any(
        getattr(resolution, k) != v for k, v in wanted.items()
    )
    evidence_changed = resolution is None or _evidence_core(resolution.evidence) != _evidence_core(
        verdict.evidence
    )
    if resolution is None:
        new = Resolution(
            observation=observation, observed_at=now, evidence=verdict.evidence, **wanted
        )
        if pending is not None:
            pending.created.append(new)
        else:
            new.save(force_insert=True)
    elif resolution_changed or evidence_changed:
        for name, value in wanted.items():
            setattr(resolution, name, value)
        resolution.evidence = verdict.evidence
        resolution.observed_at = now
        if pending is not None:
            pending.updated.append(resolution)
        else:
            resolution.save()
    if changed or resolution_changed:
        for name in changed:
            setattr(observation, name, values[name])
        observation.revision += 1
        observation.changed_at = now
        if pending is not None:
            pending.observations.append(observation)
            pending.observation_fields.update(changed)
        else:
            observation.save(update_fields=[*changed, "revision", "changed_at"])
        return CHANGED
    return UNCHANGED


def _store_disagreement(observation: Observation, verdict: Verdict, now: datetime) -> None:
    """Keep the resolver's verdict for curators when it differs from the pinned decision."""
    resolution = Resolution.objects.filter(observation=observation).first()
    current_arxiv = None
    if observation.cited_paper_id is not None:
        current_arxiv = Paper.objects.get(pk=observation.cited_paper_id).arxiv_id
    current_doi = (observation.work_doi or "").lower() or None
    agrees = (
        resolution is not None
        and resolution.status == verdict.status
        and current_arxiv == verdict.arxiv_id
        and (verdict.resolver_source != ResolverSource.DOI or current_doi == verdict.doi)
    )
    if agrees:
        PinnedDisagreement.objects.filter(observation=observation).delete()
        return
    PinnedDisagreement.objects.update_or_create(
        observation=observation,
        defaults={
            "status": verdict.status.value,
            "resolver_source": verdict.resolver_source.value,
            "arxiv_id": verdict.arxiv_id,
            "doi": verdict.doi,
            "evidence": verdict.evidence,
            "resolver_version": RESOLVER_VERSION,
            "found_at": now,
        },
    )


@dataclass
class BatchOutcome:
    """What resolving a batch of observations did."""

    changed: int = 0
    unchanged: int = 0
    pinned: int = 0
    failed: int = 0
    errors: list[str] | None = None


def observations_resolve(
    *, observations: Sequence[Observation], actor: Actor, reason: str, locked: bool = False
) -> BatchOutcome:
    """Resolve observations and write the verdicts; one bad item never stops the batch.

    `locked`: the caller's transaction has locked these observations already, with their
    resolutions and notices (`_locked`), so they are not read again.
    """
    outcome = BatchOutcome(errors=[])
    prepared: list[Prepared] = []
    for observation in observations:
        try:
            prepared.append(_prepare(observation))
        except Exception as exc:  # noqa: BLE001 - a batch never dies on one item
            outcome.failed += 1
            outcome.errors.append(f"observation {observation.pk}: {exc!r}")  # type: ignore[union-attr]
    verdicts = resolve_inputs([p.item for p in prepared])
    now = timezone.now()
    # One transaction for the batch (one commit, not one per observation). The fast path writes
    # the whole batch at once; if any item fails, the batch is redone with a savepoint per item
    # so only the failing one is left out. Notices follow the links it wrote, in the same transaction.
    with audited(actor, reason):
        try:
            with transaction.atomic():
                links = _links_for(prepared, verdicts, list(observations) if locked else None)
                results = _write_batch(prepared, verdicts, now, links)
                # The rows in hand are the rows written: no need to read them back.
                written = [o for o in links.observations.values() if o.changed_at == now]
                standing_notices_follow(written)
        except DATABASE_UNAVAILABLE:
            raise  # the connection is gone: item by item would only fail each item too
        except Exception:  # noqa: BLE001 - fall back to item by item
            log.warning("batch write failed; retrying observation by observation", exc_info=True)
            with transaction.atomic():
                # Read again: the rows in hand hold what the rolled-back batch wrote.
                results = _write_each(prepared, verdicts, now, outcome)
                standing_notices_follow_links([p.observation.pk for p in prepared], changed_at=now)
    for result in results:
        setattr(outcome, result, getattr(outcome, result) + 1)
    return outcome


def _locked(observations: QuerySet[Observation]) -> QuerySet[Observation]:
    """Lock observations (primary-key order), with their resolutions and notices selected."""
    return locked_with_notices(observations)


def _links_for(
    prepared: list[Prepared], verdicts: list[Verdict], locked: list[Observation] | None = None
) -> _Links:
    return _Links(verdicts, [p.observation.pk for p in prepared], locked)


def _write_batch(
    prepared: list[Prepared], verdicts: list[Verdict], now: datetime, links: _Links
) -> list[str]:
    pending = _Pending()
    results = [
        _apply_verdict(p, v, now, links, pending) for p, v in zip(prepared, verdicts, strict=True)
    ]
    pending.flush()
    return results


def _write_each(
    prepared: list[Prepared], verdicts: list[Verdict], now: datetime, outcome: BatchOutcome
) -> list[str]:
    links = _links_for(prepared, verdicts)
    results = []
    for item, verdict in zip(prepared, verdicts, strict=True):
        try:
            with transaction.atomic():
                results.append(_apply_verdict(item, verdict, now, links))
        except DATABASE_UNAVAILABLE:
            raise
        except Exception as exc:  # noqa: BLE001 - a batch never dies on one item
            log.exception("resolving observation %s failed", item.observation.pk)
            outcome.failed += 1
            outcome.errors.append(f"observation {item.observation.pk}: {exc!r}")  # type: ignore[union-attr]
    return results


# --- runs --------------------------------------------------------------------------------


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


RUN_CREATE_BATCH = 200  # chunks written per statement while a run is created


@transaction.atomic
def run_create(
    *,
    observations: QuerySet[Observation],
    selection: dict[str, Any],
    actor: Actor,
    reason: str,
    chunk_size: int = CHUNK_SIZE,
    job_id: str | None = None,
) -> ResolutionRun:
    """Create a run and its chunks; the chunks are what workers pick up.

    `job_id` (the Celery job creating it) makes creation idempotent: a job delivered again (its
    worker was lost, or it outlasted the broker's visibility timeout) gets the run the first
    delivery made, never a second run over the same observations. The ids are streamed into
    chunks a batch at a time, so memory stays bounded whatever the selection.
    """
    if job_id is not None:
        # Serialises deliveries of one job: the second waits for the first's commit, then finds it.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"run-create:{job_id}"])
        existing = ResolutionRun.objects.filter(selection__job=job_id).order_by("pk").first()
        if existing is not None:
            log.warning("job %s was delivered again: run %s exists already", job_id, existing.pk)
            return existing
        selection = {**selection, "job": job_id}
    run = ResolutionRun.objects.create(selection=selection, reason=reason, actor=actor.name)
    total, number, batch, ids = 0, 0, [], []
    for pk in observations.values_list("pk", flat=True).iterator(chunk_size=10 * chunk_size):
        ids.append(str(pk))
        total += 1
        if len(ids) == chunk_size:
            batch.append(ResolutionChunk(run=run, number=number, observation_ids=ids))
            number, ids = number + 1, []
            if len(batch) == RUN_CREATE_BATCH:
                ResolutionChunk.objects.bulk_create(batch)
                batch = []
    if ids:
        batch.append(ResolutionChunk(run=run, number=number, observation_ids=ids))
    ResolutionChunk.objects.bulk_create(batch)
    run.total = total
    run.save(update_fields=["total"])
    if not total:
        ResolutionRun.objects.filter(pk=run.pk).update(
            status=RunStatus.DONE, finished_at=timezone.now()
        )
        run.refresh_from_db()
    return run


class ChunkBusy(Exception):
    """Another worker holds the chunk right now: try again later (never drop it)."""


@dataclass
class ChunkOutcome:
    """What a chunk job did: resolved its observations, or why it did nothing."""

    chunk_id: int
    batch: BatchOutcome | None = None
    skipped: str | None = None

    def summary(self) -> dict[str, Any]:
        """Return the task's result: the counts, or the reason it did nothing."""
        if self.batch is None:
            return {"chunk": self.chunk_id, "skipped": self.skipped}
        return {"chunk": self.chunk_id, "changed": self.batch.changed, "failed": self.batch.failed}


_LEASE_SQL = """
    UPDATE resolution_resolutionchunk SET started_at = %s, attempts = attempts + 1
    WHERE id = (SELECT id FROM resolution_resolutionchunk
                WHERE id = %s AND done_at IS NULL FOR UPDATE SKIP LOCKED)
"""


def chunk_resolve(*, chunk_id: int, actor: Actor) -> ChunkOutcome:
    """Resolve one chunk once, or say why not; raise ChunkBusy while another worker holds it.

    A re-delivered chunk that is already done does nothing and says so. Database errors
    propagate (nothing is written): the task retries them.
    """
    # Take the lease in its own statement so the sweep sees a chunk being worked on; it skips
    # a chunk another worker holds instead of waiting for it.
    with connection.cursor() as cursor:
        cursor.execute(_LEASE_SQL, [timezone.now(), chunk_id])
        leased = cursor.rowcount == 1
    if leased:  # outside the chunk's transaction: it must not hold the run row meanwhile
        ResolutionRun.objects.filter(chunks=chunk_id, status=RunStatus.QUEUED).update(
            status=RunStatus.RUNNING
        )
    with transaction.atomic():
        # Lock the chunk row only (`of self`): a join would lock the run row too, and every
        # other chunk of the run would be skipped.
        chunk = (
            ResolutionChunk.objects.select_for_update(of=("self",), skip_locked=True)
            .filter(pk=chunk_id)
            .first()
        )
        if chunk is None or chunk.done_at is not None:
            return _chunk_not_taken(chunk_id, chunk)
        if not leased:  # another worker held it a moment ago and let go without finishing
            log.info("chunk %s: taken after another worker let go of it", chunk_id)
        run = ResolutionRun.objects.only("pk", "reason").get(pk=chunk.run_id)
        # Read once, locked: what the verdicts are computed from is what they are written over.
        observations = list(_locked(Observation.objects.filter(pk__in=chunk.observation_ids)))
        outcome = observations_resolve(
            observations=observations, actor=actor, reason=run.reason, locked=True
        )
        now = timezone.now()
        ResolutionChunk.objects.filter(pk=chunk.pk).update(done_at=now, last_error="")
        _run_count(run.pk, len(chunk.observation_ids), outcome, now)
    return ChunkOutcome(chunk_id, batch=outcome)


def _chunk_not_taken(chunk_id: int, locked: ResolutionChunk | None) -> ChunkOutcome:
    """Say why a chunk was not resolved, or raise ChunkBusy when another worker holds it."""
    chunk = locked or ResolutionChunk.objects.filter(pk=chunk_id).first()
    if chunk is None:
        log.warning("chunk %s: no such chunk (its run was deleted?); nothing to do", chunk_id)
        return ChunkOutcome(chunk_id, skipped="no such chunk")
    if chunk.done_at is not None:
        log.info("chunk %s: done already at %s; nothing to do", chunk_id, chunk.done_at)
        return ChunkOutcome(chunk_id, skipped="done already")
    raise ChunkBusy(f"chunk {chunk_id} is being resolved by another worker")


def _run_count(run_id: int, size: int, outcome: BatchOutcome, now: datetime) -> None:
    """Add a finished chunk to its run; the run is done when every observation is counted."""
    with connection.cursor() as cursor:
        # One statement, and it serialises finishing chunks on the run row (READ COMMITTED),
        # so exactly one of them sees the run complete.
        cursor.execute(
            "UPDATE resolution_resolutionrun SET done = done + %s, changed = changed + %s, "
            "failed = failed + %s, errors = CASE WHEN jsonb_array_length(errors) < %s "
            "THEN errors || %s::jsonb ELSE errors END WHERE id = %s RETURNING done, total",
            [size, outcome.changed, outcome.failed, MAX_RUN_ERRORS,
             json.dumps((outcome.errors or [])[:MAX_RUN_ERRORS]), run_id],
        )  # fmt: skip
        done, total = cursor.fetchone()
    if done >= total:
        ResolutionRun.objects.filter(pk=run_id).exclude(status=RunStatus.DONE).update(
            status=RunStatus.DONE, finished_at=now
        )


def chunk_failed(*, chunk_id: int, error: str) -> None:
    """Record that a chunk gave up after its retries: on the chunk, and on its run (failed)."""
    chunk = ResolutionChunk.objects.filter(pk=chunk_id).first()
    if chunk is None or chunk.done_at is not None:
        return
    with transaction.atomic():
        ResolutionChunk.objects.filter(pk=chunk_id).update(last_error=error[:2000])
        run = ResolutionRun.objects.select_for_update().get(pk=chunk.run_id)
        run.errors = (run.errors + [f"chunk {chunk.number}: {error}"])[:MAX_RUN_ERRORS]
        run.status = RunStatus.FAILED
        run.save(update_fields=["errors", "status"])
    log.error("run %s chunk %s gave up: %s", chunk.run_id, chunk.number, error)


def run_unfinished_chunks(run_id: int) -> list[int]:
    """Return the ids of a run's chunks not done yet, and mark the run as dispatched now."""
    now = timezone.now()
    unfinished = ResolutionRun.objects.filter(pk=run_id).exclude(status=RunStatus.DONE)
    unfinished.update(dispatched_at=now)
    ResolutionRun.objects.filter(pk=run_id, status=RunStatus.FAILED).update(
        status=RunStatus.RUNNING
    )
    return list(
        ResolutionChunk.objects.filter(run_id=run_id, done_at__isnull=True)
        .order_by("number")
        .values_list("pk", flat=True)
    )


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
