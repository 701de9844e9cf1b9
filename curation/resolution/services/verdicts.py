"""Write verdicts into observations (SPEC §2's table): rows, history, disagreements, notices."""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from curation.audit import Actor, audited
from curation.bulk_sql import insert_rows, update_rows
from curation.models import CitedWork, Observation, Paper, Resolution
from curation.notices.services.follow import (
    locked_with_notices,
    standing_notices_follow,
    standing_notices_follow_links,
)
from curation.record_versions import records_bumped_first
from curation.references.identifiers import doi_key
from curation.resolution.models import (
    PinnedDisagreement,
)
from curation.resolution.resolver import (
    RESOLVER_VERSION,
    Verdict,
    resolve_batch,
)
from curation.resolution.selectors import Prepared, listings_of, observation_prepared
from curation.resolution.services.catalogue_imports import store_crossref_works
from curation.resolution.services.works import work_for_doi, work_for_paper
from curation.states import Origin, ResolverSource
from curation.statistics import analyze_after_commit

log = logging.getLogger(__name__)

CHANGED, UNCHANGED, PINNED = "changed", "unchanged", "pinned"
# Errors that say the database cannot be used right now (connection lost, server restarting,
# deadlock): the whole chunk is retried later, never counted as failed items.
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)


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
            locked = list(locked_observations(Observation.objects.filter(pk__any=observation_ids)))
        self.observations = {o.pk: o for o in locked}
        # Each record an observation's write bumps: its citing paper, the paper it cited before
        # (read now: the verdict changes it in place) and the one it cites after.
        self.cited_before = {o.pk: o.cited_paper_id for o in locked}
        self.resolutions = {
            o.pk: o.resolution for o in locked if getattr(o, "resolution", None) is not None
        }
        arxiv_ids = {v.arxiv_id for v in verdicts if v.verified and v.arxiv_id}
        papers = Paper.objects.filter(arxiv_id__any=arxiv_ids).only(
            "id", "arxiv_id", "doi", "title"
        )
        self.papers = {p.arxiv_id: p for p in papers}
        dois = {v.doi for v in verdicts if v.verified and v.doi}
        dois |= {doi_key(p.doi) for p in self.papers.values() if p.doi}
        self.by_doi: dict[str, CitedWork] = {}
        self.by_arxiv: dict[str, CitedWork] = {}
        self._read_works(dois, arxiv_ids)
        self._create_missing_works(verdicts)

    def _read_works(self, dois: Collection[str], arxiv_ids: Collection[str]) -> None:
        """Read the canonical works of these DOIs and arXiv ids in one statement."""
        if not dois and not arxiv_ids:
            return
        for work in CitedWork.objects.filter(Q(doi__any=dois) | Q(arxiv_id__any=arxiv_ids)):
            if work.doi is not None and work.doi in dois:
                self.by_doi[work.doi] = work
            if work.arxiv_id is not None and work.arxiv_id in arxiv_ids:
                self.by_arxiv[work.arxiv_id] = work

    def _create_missing_works(self, verdicts: Sequence[Verdict]) -> None:
        """Create the batch's new canonical works in one statement (not one per observation)."""
        new: dict[tuple[str, str], str] = {}
        for verdict in verdicts:
            paper = self.paper(verdict)
            doi = verdict.doi or (doi_key(paper.doi) if paper and paper.doi else None)
            if doi and doi not in self.by_doi:
                new[("doi", doi)] = _title(verdict)
            elif not doi and paper is not None and paper.arxiv_id not in self.by_arxiv:
                new[("arxiv_id", paper.arxiv_id)] = paper.title
        if not new:
            return
        made = {key: CitedWork(**{key[0]: key[1]}, title=title) for key, title in new.items()}
        # The database's keys come back with the rows: no second read of what was just written.
        for pk, doi, arxiv_id in insert_rows(
            CitedWork, list(made.values()), skip_conflicts=True, returning=["id", "doi", "arxiv_id"]
        ):
            work = made.pop(("doi", doi) if doi is not None else ("arxiv_id", arxiv_id))
            work.pk, work._state.adding, work._state.db = pk, False, connection.alias
            if doi is not None:
                self.by_doi[doi] = work
            else:
                self.by_arxiv[arxiv_id] = work
        # Left out on a conflict: another worker created those meanwhile; read theirs.
        self._read_works(
            {value for kind, value in made if kind == "doi"},
            {value for kind, value in made if kind == "arxiv_id"},
        )

    def paper(self, verdict: Verdict) -> Paper | None:
        """Return the arXiv paper a verified verdict links to."""
        return self.papers.get(verdict.arxiv_id or "") if verdict.verified else None

    def work(self, verdict: Verdict, paper: Paper | None) -> CitedWork | None:
        """Return the canonical work notices hang off: the DOI first, else the arXiv id."""
        if not verdict.verified:
            return None
        doi = verdict.doi or (doi_key(paper.doi) if paper and paper.doi else None)
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

    def flush(self, links: _Links) -> None:
        """Write everything gathered: one statement per table (Django's bulk_update builds a
        `CASE WHEN` per row and column, quadratic in the batch). The records they change are
        bumped first, in paper order (curation/record_versions.py)."""
        written = {o.pk: o for o in self.observations}
        for resolution in (*self.created, *self.updated):
            written.setdefault(resolution.observation_id, resolution.observation)
        records_bumped_first(
            paper_id
            for pk, observation in written.items()
            for paper_id in (
                observation.paper_id,
                observation.cited_paper_id,
                links.cited_before.get(pk),
            )
        )
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
    """Write one verdict (or gather it into pending); return whether anything changed.

    A pinned observation keeps its decision (the verdict is kept for curators when it
    disagrees); otherwise its resolution follows the verdict, and its link fields and
    revision change when the link or the resolution's status did.
    """
    observation = links.observations.get(prepared.observation.pk)
    if observation is None:
        observation = Observation.objects.select_for_update().get(pk=prepared.observation.pk)
    if observation.pinned:
        _store_disagreement(observation, verdict, now)
        return PINNED
    values = _link_values(prepared, verdict, links)
    changed = {name: value for name, value in values.items() if getattr(observation, name) != value}
    resolution = links.resolutions.get(observation.pk)
    status_changed = _resolution_write(observation, resolution, verdict, now, pending)
    if not (changed or status_changed):
        return UNCHANGED
    _observation_write(observation, changed, now, pending)
    return CHANGED


def _link_values(prepared: Prepared, verdict: Verdict, links: _Links) -> dict[str, Any]:
    """Return the observation's link fields as the verdict has them (its paper and work made
    or found first)."""
    paper = links.paper(verdict)
    work = links.work(verdict, paper)
    return {
        "cited_paper_id": paper.pk if paper else None,
        "cited_work_id": work.pk if work else None,
        **_work_values(prepared, verdict, paper),
    }


def _resolution_write(
    observation: Observation,
    resolution: Resolution | None,
    verdict: Verdict,
    now: datetime,
    pending: _Pending | None,
) -> bool:
    """Make the observation's resolution the verdict's (or gather the write into pending);
    return whether its status, source, origin or resolver version changed (new evidence
    alone is stored but changes no revision)."""
    wanted = {
        "status": verdict.status.value,
        "resolver_source": verdict.resolver_source.value,
        "origin": Origin.COMPUTED.value,
        "resolver_version": RESOLVER_VERSION,
    }
    if resolution is None:
        new = Resolution(
            observation=observation, observed_at=now, evidence=verdict.evidence, **wanted
        )
        if pending is not None:
            pending.created.append(new)
        else:
            new.save(force_insert=True)
        return True
    status_changed = any(getattr(resolution, k) != v for k, v in wanted.items())
    if status_changed or _evidence_core(resolution.evidence) != _evidence_core(verdict.evidence):
        for name, value in wanted.items():
            setattr(resolution, name, value)
        resolution.evidence = verdict.evidence
        resolution.observed_at = now
        if pending is not None:
            pending.updated.append(resolution)
        else:
            resolution.save()
    return status_changed


def _observation_write(
    observation: Observation, changed: dict[str, Any], now: datetime, pending: _Pending | None
) -> None:
    """Set the changed link fields and bump the observation's revision (or gather it)."""
    for name, value in changed.items():
        setattr(observation, name, value)
    observation.revision += 1
    observation.changed_at = now
    if pending is not None:
        pending.observations.append(observation)
        pending.observation_fields.update(changed)
    else:
        observation.save(update_fields=[*changed, "revision", "changed_at"])


def _store_disagreement(observation: Observation, verdict: Verdict, now: datetime) -> None:
    """Keep the resolver's verdict for curators when it differs from the pinned decision."""
    resolution = Resolution.objects.filter(observation=observation).first()
    current_arxiv = None
    if observation.cited_paper_id is not None:
        current_arxiv = Paper.objects.get(pk=observation.cited_paper_id).arxiv_id
    current_doi = doi_key(observation.work_doi or "") or None
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
    resolutions and notices (`locked_observations`), so they are not read again.
    """
    outcome = BatchOutcome(errors=[])
    prepared: list[Prepared] = []
    listings = listings_of(observations)
    for observation in observations:
        try:
            prepared.append(observation_prepared(observation, listings.get(observation.pk)))
        except Exception as exc:  # noqa: BLE001 - a batch never dies on one item
            outcome.failed += 1
            outcome.errors.append(f"observation {observation.pk}: {exc!r}")  # type: ignore[union-attr]
    resolved = resolve_batch([p.item for p in prepared])
    verdicts = resolved.verdicts
    # What Crossref answered about DOIs the catalogue lacked joins it, as a catalogue import
    # would: the next reference naming that DOI finds it locally.
    store_crossref_works(resolved.fetched)
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
    # A run rewrites curation_resolution wholesale, chunk by chunk: the planner must follow.
    analyze_after_commit(Resolution, Observation, CitedWork)
    for result in results:
        setattr(outcome, result, getattr(outcome, result) + 1)
    return outcome


def locked_observations(observations: QuerySet[Observation]) -> QuerySet[Observation]:
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
    pending.flush(links)
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
