"""Reads of notice data: what to ask each source about a work, receipts, events, the queue."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Exists, Max, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Lower

from curation.catalogue.versions import published_dois
from curation.models import CitedWork, Observation, Paper
from curation.notice_events import EventType
from curation.references.identifiers import (
    arxiv_doi,
    arxiv_id_from_doi,
    canonical_doi,
    doi_key,
)

from .models import (
    NoticeEvent,
    NoticeReview,
    RetractionWatchImport,
    RetractionWatchRecord,
    ReviewStatus,
)
from .parsers.crossref_updates import crossref_query_doi

# The events that make staff drop what they are doing: these notify and are counted on the
# admin index. A correction qualifies a work; these put its findings in doubt.
ALERT_TYPES: tuple[str, ...] = (
    EventType.RETRACTION.value,
    EventType.PARTIAL_RETRACTION.value,
    EventType.EXPRESSION_OF_CONCERN.value,
)


@dataclass(frozen=True)
class WorkKeys:
    """What each source is asked about one canonical work."""

    crossref_doi: str | None  # never an arXiv DOI: Crossref does not hold those
    dois: frozenset[str]  # every DOI the work goes by (Retraction Watch lookups)
    arxiv_id: str | None
    paper: Paper | None  # the arXiv paper, for its published DOI and withdrawal comment


def work_keys(work: CitedWork) -> WorkKeys:
    """Return the identifiers to query for a work (an arXiv work also by its published DOI)."""
    return works_keys([work])[work.pk]


# What the sources are asked from an arXiv work's paper (its published DOI, the withdrawal
# comment and version, the date of its last update); the abstract and authors are not read.
_PAPER_KEYS = ("arxiv_id", "doi", "in_catalogue", "comments", "latest_version", "last_updated")


def works_keys(works: Sequence[CitedWork]) -> dict[int, WorkKeys]:
    """Return the identifiers to query for each work, by work id (one query for all)."""
    own_dois = {work.pk: canonical_doi(work.doi) for work in works}
    arxiv_ids = {work.pk: work.arxiv_id or arxiv_id_from_doi(own_dois[work.pk]) for work in works}
    wanted = sorted({a for a in arxiv_ids.values() if a})
    found = Paper.objects.filter(arxiv_id__any=wanted).only(*_PAPER_KEYS) if wanted else []
    papers = {p.arxiv_id: p for p in found}
    # A paper whose arXiv record gives no DOI may still be known published under one: its
    # journal-ref names a Crossref work, or Crossref's relation says so (catalogue.versions).
    versions = published_dois(a for a, p in papers.items() if not canonical_doi(p.doi))
    keys = {}
    for work in works:
        own_doi, arxiv_id = own_dois[work.pk], arxiv_ids[work.pk]
        paper = papers.get(arxiv_id) if arxiv_id else None
        published = canonical_doi(paper.doi) if paper is not None else None
        if published is None and arxiv_id in versions:
            published = versions[arxiv_id].doi
        dois = {d for d in (own_doi, published) if d}
        if arxiv_id:
            dois.add(arxiv_doi(arxiv_id))
        keys[work.pk] = WorkKeys(
            crossref_doi=crossref_query_doi(own_doi, published),
            dois=frozenset(dois),
            arxiv_id=arxiv_id,
            paper=paper,
        )
    return keys


@dataclass(frozen=True)
class RetractionWatchLookup:
    """The latest Retraction Watch import and its records for a set of DOIs, read once for a
    batch of works (None: the database has not been imported)."""

    run: RetractionWatchImport | None
    by_doi: dict[str, list[RetractionWatchRecord]]

    def records(self, dois: Iterable[str]) -> list[RetractionWatchRecord]:
        """Return the records of these DOIs, each once."""
        found = {r.pk: r for doi in dois for r in self.by_doi.get(doi, [])}
        return list(found.values())


def retraction_watch_lookup(dois: Iterable[str]) -> RetractionWatchLookup:
    """Read the records of these DOIs from the latest Retraction Watch import (two queries)."""
    run = latest_import()
    by_doi: dict[str, list[RetractionWatchRecord]] = {}
    wanted = sorted(set(dois))
    if run is not None:
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start : start + _CHUNK]
            for record in RetractionWatchRecord.objects.filter(original_doi__any=chunk):
                by_doi.setdefault(record.original_doi or "", []).append(record)
    return RetractionWatchLookup(run=run, by_doi=by_doi)


def affected_observations(work_id: int) -> QuerySet[Observation]:
    """Return the live observations that cite a work, with their citing papers."""
    return (
        Observation.objects.filter(cited_work_id=work_id, retired_at__isnull=True)
        .select_related("paper")
        .order_by("paper__arxiv_id", "reference_index")
    )


def latest_import() -> RetractionWatchImport | None:
    """Return the latest finished Retraction Watch import, or None before the first."""
    return (
        RetractionWatchImport.objects.filter(finished_at__isnull=False)
        .order_by("-finished_at")
        .first()
    )


def cited_works() -> QuerySet[CitedWork]:
    """Return the canonical works at least one live observation cites."""
    live = Observation.objects.filter(cited_work=OuterRef("pk"), retired_at__isnull=True)
    return CitedWork.objects.filter(Exists(live))


def works_due(*, limit: int, before: datetime) -> list[int]:
    """Return up to `limit` cited works not queried since `before`, never-queried first."""
    due = (
        cited_works()
        .annotate(last_query=Max("notice_receipts__observed_at"))
        .filter(Q(last_query__isnull=True) | Q(last_query__lt=before))
        .order_by("last_query", "pk")
    )
    never = list(due.filter(last_query__isnull=True).values_list("pk", flat=True)[:limit])
    stale = due.filter(last_query__isnull=False).values_list("pk", flat=True)
    return never + list(stale[: limit - len(never)])


def cited_works_for_dois(dois: set[str]) -> set[int]:
    """Return the cited works that go by one of these DOIs (directly or as a published DOI)."""
    found: set[int] = set()
    wanted = sorted(dois)
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        arxiv_ids = [a for d in chunk if (a := arxiv_id_from_doi(d))]
        # Paper.doi keeps the catalogue's case; CitedWork.doi is stored lower-cased.
        published = Paper.objects.annotate(doi_lower=Lower("doi")).filter(doi_lower__in=chunk)
        matches = cited_works().filter(
            Q(doi__in=chunk)
            | Q(arxiv_id__in=published.values("arxiv_id"))
            | Q(arxiv_id__in=arxiv_ids)
        )
        found.update(matches.values_list("pk", flat=True))
    return found


_CHUNK = 5000  # PostgreSQL takes at most 65,535 parameters in one statement


# The open reviews: the queue page and the admin index count the same rows.
QUEUE = Q(status=ReviewStatus.NEW)


def review_queue() -> QuerySet[NoticeReview]:
    """Return the open reviews, most severe first, then newest."""
    return (
        NoticeReview.objects.filter(QUEUE)
        .select_related("event__work")
        .order_by("severity", "-opened_at")
    )


@dataclass(frozen=True)
class QueueCounts:
    """How many reviews the queue lists, and how many of them are alerts."""

    total: int
    alerts: int


def review_queue_counts() -> QueueCounts:
    """Return the queue's size and its retractions and expressions of concern, in one query."""
    alert = Q(event__type__in=ALERT_TYPES, event__superseded=False)
    counts = (
        review_queue().order_by().aggregate(total=Count("pk"), alerts=Count("pk", filter=alert))
    )
    return QueueCounts(total=counts["total"], alerts=counts["alerts"])


def unreviewed_alert_count() -> int:
    """Return how many retractions and expressions of concern await review."""
    return review_queue_counts().alerts


# --- the API's notice events: its list, and one event as a review decision leaves it ---------


def notice_events_with_reviews() -> QuerySet[NoticeEvent]:
    """Return notice events with their work and review, read in one statement."""
    return NoticeEvent.objects.select_related("work", "review")


def notice_event_with_review(pk: int) -> NoticeEvent:
    """Return one notice event with its work and review (NoticeEvent.DoesNotExist if none)."""
    return notice_events_with_reviews().get(pk=pk)


def review_of_event(event_id: int) -> NoticeReview | None:
    """Return the staff review of a notice event, or None when it was never queued."""
    return NoticeReview.objects.filter(event_id=event_id).first()


# --- for the notices' tasks and commands ------------------------------------------------------


def works_by_pk(pks: Sequence[int]) -> list[CitedWork]:
    """Return the cited works of these primary keys that exist, in key order."""
    return list(CitedWork.objects.filter(pk__any=list(pks)).order_by("pk"))


def work_named(ref: str) -> CitedWork | None:
    """Return the work named by a primary key, a DOI, or an arXiv id (`arXiv:` optional)."""
    if ref.isdigit():
        return CitedWork.objects.filter(pk=int(ref)).first()
    if doi := canonical_doi(ref):
        return CitedWork.objects.filter(doi__in={doi, doi_key(ref)}).first()
    return CitedWork.objects.filter(arxiv_id=ref.removeprefix("arXiv:")).first()


def citing_papers_count() -> Subquery:
    """Return, for a notice review row, how many papers cite its event's work (live references)."""
    papers = (
        Observation.objects.filter(cited_work=OuterRef("event__work"), retired_at__isnull=True)
        .values("cited_work")
        .annotate(n=Count("paper", distinct=True))
        .values("n")
    )
    return Subquery(papers[:1])


def described_title(work: CitedWork) -> str:
    """Return the title a work's citing references describe it by, or ""."""
    described = (
        Observation.objects.filter(cited_work=work, work_title__isnull=False)
        .exclude(work_title="")
        .values_list("work_title", flat=True)
        .first()
    )
    return described or ""
