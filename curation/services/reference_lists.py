"""Import of a paper's reference list, keeping curator decisions across re-imports (SPEC §6).

An observation read from a reference list is identified by (citing paper, source, normalised raw
text, occurrence); its reference number is only an attribute. So re-importing a corrected list
keeps every unchanged reference (and its resolution, pins and history) even when numbers shift,
creates the references whose text is new, and retires the ones that disappeared.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from ..audit import Actor, audited
from ..models import Observation, ObservationListing, Paper
from ..references.groups import GroupKey, reference_group_key
from ..references.identifiers import required_arxiv_id
from ..references.listed import ListedReference
from ..references.normalize import normalize_reference_text
from ..references.parse import ParsedReference, parse_reference
from ..references.stored import PARSE_VERSION, stored_parse
from ..statistics import analyze_after_commit
from .group_counts import recount_groups_of
from .reference_groups import groups_join

REFERENCE_LIST_SOURCE = "reference_list"
_YEARS = range(1800, 2101)


@dataclass
class ReferenceListOutcome:
    """What importing one reference list changed."""

    arxiv_id: str
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    retired: int = 0
    restored: int = 0
    superseded: int = 0
    warnings: list[str] = field(default_factory=list)


def reference_numbers(references: Sequence[ListedReference]) -> list[int]:
    """Return each reference's number: its printed label when the labels are a clean numbering.

    Labels are used only when every one is a distinct whole number and none looks like a year
    read as a number ("Reference 2022"); otherwise the source order numbers the list.
    """
    labels: list[int] = []
    for reference in references:
        label = (reference.label or "").strip()
        if not label.isdigit():
            return [position for position, _ in enumerate(references, start=1)]
        labels.append(int(label))
    plausible = all(n not in _YEARS or n <= len(references) for n in labels)
    if plausible and len(set(labels)) == len(labels):
        return labels
    return [position for position, _ in enumerate(references, start=1)]


def _work_values(parsed: ParsedReference, now: datetime) -> dict[str, Any]:
    """Return the cited_work columns as the reference describes the work."""
    ids = parsed.identifiers
    return {
        "work_title": parsed.title,
        "work_year": parsed.year,
        "work_venue": parsed.venue,
        "work_doi": ids.dois[0].value if ids.dois else None,
        "work_arxiv_id": ids.arxiv[0].id if ids.arxiv else None,
        "work_metadata_source": "raw_reference",
        "work_snapshot_observed_at": now,
    }


def _clean(raw: str) -> str:
    # PostgreSQL refuses NUL in text; a reader should have dropped them already.
    return raw.replace("\x00", "")


@transaction.atomic
def reference_list_import(
    *,
    arxiv_id: str,
    references: Sequence[ListedReference],
    actor: Actor,
    reason: str,
    source: str = REFERENCE_LIST_SOURCE,
    supersede_imported: bool = False,
) -> ReferenceListOutcome:
    """Bring a paper's observations from one source in line with this reference list.

    `supersede_imported`: the list is the paper's own (read from its source), so observations
    an imported record gave it from the same source are retired (pinned ones stay).

    Raises NotAnArxivId (and changes nothing) when `arxiv_id` is not an arXiv id.
    """
    arxiv_id = required_arxiv_id(arxiv_id)
    outcome = ReferenceListOutcome(arxiv_id=arxiv_id)
    now = timezone.now()
    with audited(actor, reason):
        paper, created = Paper.objects.get_or_create(arxiv_id=arxiv_id)
        if created:
            outcome.warnings.append(f"arXiv:{arxiv_id} was not known; created it without metadata")
        existing = {
            (o.normalized_text, o.occurrence): o
            for o in Observation.objects.select_for_update().filter(
                paper=paper, source=source, raw_text__isnull=False
            )
        }
        parsed_now = _parsed_now(existing.values())
        seen: Counter[str] = Counter()
        kept: set[uuid.UUID] = set()
        new: list[Observation] = []
        listings = _Listings()
        keys: dict[uuid.UUID, tuple[GroupKey, str]] = {}
        for reference, number in zip(references, reference_numbers(references), strict=True):
            raw = _clean(reference.raw)
            normalized = normalize_reference_text(raw)
            seen[normalized] += 1
            observation = existing.get((normalized, seen[normalized]))
            parsed = None
            if observation is None:
                parsed = parse_reference(raw)
                observation, key = _new(
                    paper, source, parsed, normalized, seen[normalized], number, now
                )
                new.append(observation)
                keys[observation.pk] = (key, raw)
            else:
                if observation.raw_text != raw or observation.pk not in parsed_now:
                    parsed = parse_reference(raw)
                _refresh(observation, raw, number, now, outcome)
            listings.add(observation, reference, parsed)
            kept.add(observation.pk)
        # One statement for the new ones: the history triggers run once per statement, not per row.
        Observation.objects.bulk_create(new, batch_size=500)
        listings.write()
        outcome.created = len(new)
        # New references join their groups; one joining a decided group is given the group's
        # decision by a job queued on commit (curation.services.reference_groups).
        groups_join(members=keys)
        for observation in existing.values():
            if observation.pk not in kept and observation.retired_at is None:
                observation.retired_at = now
                _touch(observation, now, ["retired_at"])
                outcome.retired += 1
        if supersede_imported and references:
            _supersede_imported(paper, source, now, outcome)
        if outcome.retired or outcome.restored:  # live members of their groups changed
            recount_groups_of(list(existing.values()))
    analyze_after_commit(Observation, Paper)
    return outcome


def _parsed_now(observations: Iterable[Observation]) -> set[uuid.UUID]:
    """Return which of these observations have their text's parse stored by this parser."""
    return set(
        ObservationListing.objects.filter(
            observation__in=[o.pk for o in observations], parse__v=PARSE_VERSION
        ).values_list("observation_id", flat=True)
    )


class _Listings:
    """What each reference's list said beyond its text, and its parse, to be written at once."""

    def __init__(self) -> None:
        self.parsed: list[ObservationListing] = []  # a new parse to store
        self.kept: list[ObservationListing] = []  # the stored parse stays

    def add(
        self, observation: Observation, reference: ListedReference, parsed: ParsedReference | None
    ) -> None:
        """Keep the reference's listing for the observation (its parse when one was made)."""
        listing = ObservationListing(
            observation_id=observation.pk,
            key=reference.key,
            stated=reference.stored(),
            parse=stored_parse(parsed) if parsed is not None else None,
        )
        (self.kept if parsed is None else self.parsed).append(listing)

    def write(self) -> None:
        """Insert or update them, 500 a statement (not one statement per reference)."""
        for rows, fields in ((self.parsed, ["key", "stated", "parse"]), (self.kept, ["key", "stated"])):
            ObservationListing.objects.bulk_create(
                rows, batch_size=500, update_conflicts=True, unique_fields=["observation"],
                update_fields=fields,
            )  # fmt: skip


def _supersede_imported(paper: Paper, source: str, now: datetime, outcome: ReferenceListOutcome) -> None:
    """Retire the observations an imported record gave this paper from the same source.

    The list read now is the paper's own, so the imported snapshot's copies of it would only
    repeat it in the record. Retired, not deleted (history keeps them, they can be restored);
    one a curator decided (pinned) stays, and the import says so.
    """
    imported = Observation.objects.select_for_update().filter(
        paper=paper, source=source, raw_text__isnull=True, retired_at__isnull=True
    )
    kept = 0
    for observation in imported:
        if observation.pinned:
            kept += 1
            continue
        observation.retired_at = now
        _touch(observation, now, ["retired_at"])
        outcome.superseded += 1
    if kept:
        outcome.warnings.append(
            f"{kept} imported observation(s) a curator decided were kept beside the new list"
        )


def _new(
    paper: Paper,
    source: str,
    parsed: ParsedReference,
    normalized: str,
    occurrence: int,
    number: int,
    now: datetime,
) -> tuple[Observation, GroupKey]:
    """Return the new observation and its group (from the one parse of its text)."""
    observation = Observation(
        paper=paper,
        source=source,
        reference_index=number,
        source_observed_at=now,
        raw_text=parsed.raw,
        normalized_text=normalized,
        occurrence=occurrence,
        work_id=uuid.uuid4(),
        changed_at=now,
        **_work_values(parsed, now),
    )
    return observation, reference_group_key(parsed, normalized)


def _refresh(
    observation: Observation, raw: str, number: int, now: datetime, outcome: ReferenceListOutcome
) -> None:
    """Update what may change for the same reference (its number, its exact raw text)."""
    changed = []
    if observation.retired_at is not None:
        observation.retired_at = None
        changed.append("retired_at")
        outcome.restored += 1
    if observation.reference_index != number:
        observation.reference_index = number
        changed.append("reference_index")
    if observation.raw_text != raw:  # same normalised text, other spacing or case
        observation.raw_text = raw
        changed.append("raw_text")
    if changed:
        _touch(observation, now, changed)
        outcome.updated += 1
    else:
        outcome.unchanged += 1


def _touch(observation: Observation, now: datetime, fields: list[str]) -> None:
    observation.revision += 1
    observation.changed_at = now
    observation.save(update_fields=[*fields, "revision", "changed_at"])
