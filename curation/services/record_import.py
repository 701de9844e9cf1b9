"""Import of pith.paper-citation-record.v1 documents, stored as they are (SPEC §1)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from ..audit import Actor, audited
from ..models import (
    ExternalCitationMeasurement,
    Observation,
    Paper,
    Resolution,
    StandingNotice,
)
from ..notices.services import follow
from ..record.timestamps import format_micro_offset, parse_timestamp
from ..resolution.services.works import canonical_work
from ..states import VERIFIED_STATUSES, Origin, ResolverSource
from ..statistics import analyze_after_commit


class RecordConflict(ValueError):
    """A record contradicts stored data in a way an import must not silently resolve."""


@dataclass
class ImportOutcome:
    """What importing one record changed."""

    arxiv_id: str
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    retired: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Return whether the import changed anything."""
        return bool(self.created or self.updated or self.retired)


def _ts(value: str | None) -> datetime | None:
    return parse_timestamp(value) if value is not None else None


def _apply(instance: Any, values: dict[str, Any]) -> list[str]:
    """Set the values that differ on instance and return the names of the changed fields."""
    changed = [name for name, value in values.items() if getattr(instance, name) != value]
    for name in changed:
        setattr(instance, name, values[name])
    return changed


# --- papers ------------------------------------------------------------------------------


def _paper_values(block: dict[str, Any]) -> dict[str, Any]:
    """Return Paper field values from a v1 paper block or paper reference block."""
    values = {
        "title": block["title"],
        "submitted_at": _ts(block["submitted_at"]),
        "last_updated": _ts(block["last_updated"]),
        "snapshot_observed_at": _ts(block["snapshot_observed_at"]),
        "latest_version": block["latest_version"]
        if "latest_version" in block
        else block["version"],
    }
    if "primary_category" in block:
        values["primary_category"] = block["primary_category"]
    return values


def _upsert_paper(arxiv_id: str, values: dict[str, Any], cache: dict[str, Paper]) -> Paper:
    """Create the paper, or bring it to this snapshot unless the database holds a newer one."""
    paper = cache.get(arxiv_id) or Paper.objects.filter(arxiv_id=arxiv_id).first()
    if paper is None:
        paper = Paper.objects.create(arxiv_id=arxiv_id, **values)
    else:
        incoming, stored = values["snapshot_observed_at"], paper.snapshot_observed_at
        if stored is None or (incoming is not None and incoming >= stored):
            changed = _apply(paper, values)
            if changed:
                paper.save(update_fields=changed)
    cache[arxiv_id] = paper
    return paper


# --- observations ------------------------------------------------------------------------


def _observation_values(item: dict[str, Any], citing: Paper, cited: Paper | None) -> dict[str, Any]:
    citation = item["citation"]
    work = citation["cited_work"]
    # Ids, not instances: comparing a foreign key by instance would load it once per observation.
    values: dict[str, Any] = {
        "paper_id": citing.pk,
        "source": citation["source"],
        "reference_index": citation["reference_index"],
        "source_observed_at": parse_timestamp(citation["source_observed_at"]),
        "cited_paper_id": cited.pk if cited is not None else None,
        "work_described": work is not None,
    }
    work = work or {}
    values.update(
        work_id=uuid.UUID(work["work_id"]) if work.get("work_id") else None,
        work_title=work.get("title"),
        work_year=work.get("year"),
        work_venue=work.get("venue"),
        work_doi=work.get("doi"),
        work_arxiv_id=work.get("arxiv_id"),
        work_pith_arxiv_id=work.get("pith_arxiv_id"),
        imported_doi=work.get("doi"),
        imported_pith_arxiv_id=work.get("pith_arxiv_id"),
        work_metadata_source=work.get("metadata_source"),
        work_snapshot_observed_at=_ts(work.get("snapshot_observed_at")),
    )
    return values


def _resolution_values(item: dict[str, Any]) -> dict[str, Any]:
    resolution = item["resolution"]
    return {
        "status": resolution["status"],
        "resolver_source": resolution["resolver_source"],
        "observed_at": parse_timestamp(resolution["observed_at"]),
    }


def _notice_values(item: dict[str, Any]) -> dict[str, Any]:
    notice = item["standing_notice"]
    receipts = [
        {
            "observed_at": format_micro_offset(parse_timestamp(r["observed_at"])),
            "source": r["source"],
        }
        for r in notice["source_receipts"]
    ]
    return {
        "state": notice["state"],
        "reason": notice["reason"],
        "observation_text": notice.get("observation"),
        "events": notice["events"],
        "source_receipts": receipts,
    }


def _upsert_imported_part(
    model: type[Resolution] | type[StandingNotice], observation: Observation, values: dict[str, Any]
) -> bool:
    """Store an imported resolution or notice unless citerec or a curator has replaced it."""
    existing = model.objects.filter(observation=observation).first()
    if existing is None:
        model.objects.create(observation=observation, origin=Origin.IMPORTED, **values)
        return True
    if existing.origin != Origin.IMPORTED:
        return False  # SPEC §1: from now on citerec's own judgement applies, not the import's
    changed = _apply(existing, values)
    if changed:
        existing.save(update_fields=changed)
    return bool(changed)


# What a resolution decides (SPEC §2's table): once citerec or a curator has resolved an
# observation, its link is theirs, and a re-import leaves it (SPEC §1 "Imported versus computed").
_LINK_FIELDS = ("cited_paper_id", "work_pith_arxiv_id")


def _file_owned(observation: Observation, values: dict[str, Any]) -> dict[str, Any]:
    """Return the values the file still owns for a stored observation."""
    resolution: Resolution | None = getattr(observation, "resolution", None)
    if resolution is None or resolution.origin == Origin.IMPORTED:
        return values
    owned = {k: v for k, v in values.items() if k not in _LINK_FIELDS}
    if resolution.resolver_source == ResolverSource.DOI and resolution.status in VERIFIED_STATUSES:
        del owned["work_doi"]  # the DOI the resolution verified, not the one the file describes
    return owned


def _import_observation(
    item: dict[str, Any], citing: Paper, cited: Paper | None, now: datetime, outcome: ImportOutcome
) -> uuid.UUID | None:
    """Store one observation; return its id when its canonical link changed."""
    obs_id = uuid.UUID(item["observation_id"])
    values = _observation_values(item, citing, cited)
    observation = (
        Observation.objects.select_for_update(of=("self",))
        .select_related("resolution")
        .filter(pk=obs_id)
        .first()
    )
    if observation is None:
        observation = Observation.objects.create(
            id=obs_id, changed_at=now, cited_work=canonical_work(values["work_doi"], cited), **values
        )
        _upsert_imported_part(Resolution, observation, _resolution_values(item))
        _upsert_imported_part(StandingNotice, observation, _notice_values(item))
        outcome.created += 1
        return None
    if observation.paper_id != citing.pk:
        raise RecordConflict(
            f"observation {obs_id} already belongs to arXiv:{observation.paper.arxiv_id}"
        )
    owned = {**_file_owned(observation, values), "retired_at": None}
    if observation.pinned:
        differ = sorted(name for name, value in owned.items() if getattr(observation, name) != value)
        if differ:
            outcome.warnings.append(
                f"observation {obs_id} is pinned by a curator; the file's "
                f"{', '.join(differ)} were not applied"
            )
        outcome.unchanged += 1
        return None
    changed = _apply(observation, owned)
    changed_parts = _upsert_imported_part(Resolution, observation, _resolution_values(item))
    changed_parts |= _upsert_imported_part(StandingNotice, observation, _notice_values(item))
    if not (changed or changed_parts):
        outcome.unchanged += 1
        return None
    relinked = None
    if "cited_paper_id" in owned:  # the file still owns the link: the canonical work follows it
        work = canonical_work(observation.work_doi, cited)
        if observation.cited_work_id != (work.pk if work else None):
            observation.cited_work = work
            relinked = obs_id
    observation.revision += 1
    observation.changed_at = now
    observation.save()
    outcome.updated += 1
    return relinked


def _papers_of(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the newest snapshot of every paper the record mentions, by arXiv id."""
    blocks: dict[str, dict[str, Any]] = {}

    def offer(block: dict[str, Any] | None) -> None:
        if block is None:
            return
        values = _paper_values(block)
        current = blocks.get(block["arxiv_id"])
        if current is None or _newer(values, current):
            # Keep fields only the fuller block has (primary_category) when a newer ref lacks them.
            blocks[block["arxiv_id"]] = {**(current or {}), **values}

    offer(document["paper"])
    for item in document["outbound"] + document["inbound"]:
        offer(item["citation"]["citing_paper"])
        offer(item["citation"]["cited_paper"])
    return blocks


def _newer(values: dict[str, Any], current: dict[str, Any]) -> bool:
    incoming, stored = values["snapshot_observed_at"], current["snapshot_observed_at"]
    return stored is None or (incoming is not None and incoming > stored)


def _replace_measurements(paper: Paper, documents: list[dict[str, Any]]) -> bool:
    stored = list(paper.measurements.order_by("position"))
    if [m.document for m in stored] == documents:
        return False
    paper.measurements.all().delete()
    for position, document in enumerate(documents):
        ExternalCitationMeasurement.objects.create(
            paper=paper,
            position=position,
            source=document["source"],
            observed_at=_ts(document.get("observed_at")),
            count=document.get("count"),
            document=document,
        )
    return True


@transaction.atomic
def record_import(*, document: dict[str, Any], actor: Actor, reason: str) -> ImportOutcome:
    """Store a checked v1 record as it is (SPEC §1 "Imported versus computed"); no resolution."""
    arxiv_id = document["paper"]["arxiv_id"]
    outcome = ImportOutcome(arxiv_id=arxiv_id)
    now = timezone.now()
    with audited(actor, reason):
        papers: dict[str, Paper] = {}
        for paper_id, values in _papers_of(document).items():
            _upsert_paper(paper_id, values, papers)
        paper = papers[arxiv_id]
        relinked = []
        for item in document["outbound"] + document["inbound"]:
            citation = item["citation"]
            cited = citation["cited_paper"]
            relinked.append(
                _import_observation(
                    item,
                    papers[citation["citing_paper"]["arxiv_id"]],
                    papers[cited["arxiv_id"]] if cited else None,
                    now,
                    outcome,
                )
            )
        follow.standing_notices_follow_links([pk for pk in relinked if pk is not None])
        kept = {uuid.UUID(item["observation_id"]) for item in document["outbound"]}
        outcome.retired += _retire_missing(paper, kept, now, outcome)
        if _replace_measurements(paper, document["external_citation_measurements"]):
            outcome.updated += 1
    analyze_after_commit(Paper, Observation, Resolution, StandingNotice)
    return outcome


def _retire_missing(
    paper: Paper, kept: set[uuid.UUID], now: datetime, outcome: ImportOutcome
) -> int:
    """Retire imported observations the new record no longer lists (kept in history)."""
    missing = Observation.objects.filter(
        paper=paper, raw_text__isnull=True, retired_at__isnull=True
    ).exclude(pk__in=kept)
    retired = 0
    for observation in missing.select_for_update():
        if observation.pinned:
            outcome.warnings.append(f"observation {observation.pk} is pinned; not retired")
            continue
        observation.retired_at = now
        observation.changed_at = now
        observation.revision += 1
        observation.save(update_fields=["retired_at", "changed_at", "revision"])
        retired += 1
    return retired
