"""A catalogue of arXiv papers and their published versions, one for each way a version set is
found (curation/catalogue/versions.py), and helpers that resolve references against it."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.utils import timezone

from curation.audit import Actor, audited
from curation.models import Observation, Paper
from curation.resolution.services import observations_resolve
from curation.resolution.services.catalogue_imports import store_crossref_works
from tests.resolution.snapshot import snapshot_line

ACTOR = Actor.command("test")
CITING = "2501.00001"

# arXiv id -> (title, published DOI, how the version set is found); None: no version.
BY_ARXIV_DOI = ("2101.00001", "Quantum widgets in the lattice", "10.1000/jw.1", "arxiv_doi")
BY_JOURNAL_REF = ("1201.0002", "Sparse gauge fields revisited", "10.1103/physrevd.85.094516",
                  "journal_ref")  # fmt: skip
BY_HAS_PREPRINT = ("2102.00003", "Entangled sparrows in flight", "10.1000/jw.3",
                   "crossref_relation")  # fmt: skip
BY_IS_PREPRINT_OF = ("2102.00004", "Orbits of quiet moons", "10.1000/jw.4", "crossref_relation")
VERSION_SETS = (BY_ARXIV_DOI, BY_JOURNAL_REF, BY_HAS_PREPRINT, BY_IS_PREPRINT_OF)

# A published work whose relation names an arXiv paper citerec does not hold.
UNKNOWN_PREPRINT = ("10.1000/jw.5", "Lonely comets of the outer belt", "2103.09999")
# Two arXiv papers whose records both claim one DOI.
CONTESTED = ("10.1000/jw.6", "Twin papers on doubled claims", ("2104.00006", "2104.00007"))


def _work(doi: str, title: str, year: int, **extra: Any) -> dict[str, Any]:
    return {"DOI": doi, "title": [title], "type": "journal-article", "author": [{"family": "Ferrer"}],
            "issued": {"date-parts": [[year]]}, **extra}  # fmt: skip


def _preprint(kind: str, value: str) -> dict[str, Any]:
    return {"id-type": kind, "id": value, "asserted-by": "subject"}


def load_catalogue(tmp_path: Path) -> None:
    """Import the arXiv papers and the Crossref works of the version sets above."""
    contested_doi, contested_title, contested_ids = CONTESTED
    lines = [
        snapshot_line(BY_ARXIV_DOI[0], BY_ARXIV_DOI[1], "Ada Ferrer", 2021, doi="10.1000/JW.1"),
        snapshot_line(BY_JOURNAL_REF[0], BY_JOURNAL_REF[1], "Ada Ferrer", 2012,
                      journal_ref="Phys. Rev. D 85 (2012) 094516"),
        snapshot_line(BY_HAS_PREPRINT[0], BY_HAS_PREPRINT[1], "Ada Ferrer", 2021),
        snapshot_line(BY_IS_PREPRINT_OF[0], BY_IS_PREPRINT_OF[1], "Ada Ferrer", 2021),
        *(snapshot_line(a, contested_title, "Ada Ferrer", 2021, doi=contested_doi)
          for a in contested_ids),
    ]  # fmt: skip
    path = tmp_path / "versions.jsonl"
    path.write_text("\n".join(lines) + "\n")
    call_command("import_arxiv_snapshot", str(path), "--no-requeue", stdout=io.StringIO(),
                 verbosity=0)  # fmt: skip
    store_crossref_works([
        _work(BY_ARXIV_DOI[2], BY_ARXIV_DOI[1], 2021),
        _work("10.1103/PhysRevD.85.094516", BY_JOURNAL_REF[1], 2012, volume="85", page="094516",
              **{"container-title": ["Physical Review D"]}),
        _work(BY_HAS_PREPRINT[2], BY_HAS_PREPRINT[1], 2021, relation={
            "has-preprint": [_preprint("doi", f"10.48550/arXiv.{BY_HAS_PREPRINT[0]}")]}),
        _work(f"10.48550/arXiv.{BY_IS_PREPRINT_OF[0]}", BY_IS_PREPRINT_OF[1], 2021, relation={
            "is-preprint-of": [_preprint("doi", BY_IS_PREPRINT_OF[2])]}),
        _work(BY_IS_PREPRINT_OF[2], BY_IS_PREPRINT_OF[1], 2021),
        _work(UNKNOWN_PREPRINT[0], UNKNOWN_PREPRINT[1], 2021, relation={
            "has-preprint": [_preprint("arxiv", f"arXiv:{UNKNOWN_PREPRINT[2]}")]}),
        _work(contested_doi, contested_title, 2021),
    ])  # fmt: skip


def resolved(raw: str, index: int = 1) -> Observation:
    """Store a reference of the citing paper, resolve it, and return it as written."""
    citing, _ = Paper.objects.get_or_create(arxiv_id=CITING, defaults={"title": "Citing"})
    with audited(ACTOR, "test setup"):
        observation = Observation.objects.create(
            paper=citing, source="test", reference_index=index,
            source_observed_at=timezone.now(), raw_text=raw, normalized_text=raw.lower(),
            changed_at=timezone.now() - dt.timedelta(days=1),
        )  # fmt: skip
    observations_resolve(observations=[observation], actor=ACTOR, reason="test")
    return Observation.objects.select_related("cited_paper", "cited_work", "resolution").get(
        pk=observation.pk
    )
