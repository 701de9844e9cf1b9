"""Re-resolving the sample record gives each of its 33 references the state SPEC §2 gives it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from curation.models import Observation, PaperEvent
from tests.resolution.conftest import FIXTURES

pytestmark = pytest.mark.django_db

V, P, U = "verified_exact", "parse_uncertain", "unresolved"
LA = "local_arxiv"
# reference index -> (state, resolver_source, linked arXiv id), and why.
EXPECTED = {
    1: (U, "raw_fallback", None),  # a bare URL: a web page, kept in the evidence
    2: (V, LA, "2401.11202"),  # id and title agree exactly (the sample said metadata_mismatch)
    3: (P, "raw_fallback", None),  # author fragment "E., Thekkath, C"
    4: (P, "raw_fallback", None),  # author fragment
    5: (P, "raw_fallback", None),  # no title, year 1901, no identifier
    6: (V, LA, "1604.06174"),  # the 14 linked-but-unresolved: their pith id resolves
    7: (V, LA, "1410.0759"),  # ", 2014" tail ignored
    8: (V, LA, "2204.02311"),  # no title: the identifier alone
    9: (V, LA, "2010.11929"),  # title only, equal once normalised (ViT)
    10: (V, LA, "2407.21783"),
    11: (V, LA, "2101.03961"),  # ", June 2022" tail; 2022 is the v2 year
    12: (U, LA, None),  # NeMo toolkit: the arXiv NeMo paper has another title
    13: (V, LA, "2009.06489"),
    14: (U, "raw_fallback", None),  # DISTMM: not in the catalogue
    15: (P, "raw_fallback", None),  # author fragment
    16: (V, LA, "2402.15627"),  # MegaScale, title only
    17: (V, LA, "2211.05953"),  # "Breadth- First": line-break damage repaired
    18: (U, "raw_fallback", None),  # MLIR (CGO 2021) is not the arXiv MLIR paper
    19: (V, LA, "2006.16668"),
    20: (V, LA, "2410.06511"),
    21: (U, "raw_fallback", None),  # nnScaler: not in the catalogue
    22: (P, "raw_fallback", None),  # author fragment
    23: (P, "raw_fallback", None),  # author fragment "R., Ganger, G"
    24: (V, LA, "2104.04473"),  # "megatron- LM" repaired, title only
    25: (V, LA, "2211.05102"),
    26: (U, LA, None),  # "Zero bubble (almost)": the arXiv title lacks "(almost)"
    27: (U, "raw_fallback", None),  # DeepSpeed (KDD): ZeRO is another work
    28: (V, LA, "1909.08053"),
    29: (V, LA, "2201.11990"),  # author-fragment title is unusable: the pith id decides
    30: (V, LA, "2307.09288"),
    31: (V, LA, "2105.04663"),
    32: (P, "raw_fallback", None),  # author fragment
    33: (P, "raw_fallback", None),  # BibTeX artefact "write newline"
}


def test_sample_record_references_get_spec_states(sample_record_path: Path) -> None:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    call_command(
        "import_arxiv_snapshot", str(FIXTURES / "seed_catalogue.jsonl"),
        "--no-requeue", stdout=io.StringIO(), verbosity=0,
    )  # fmt: skip
    call_command("resolve", "--all", "--sync", stdout=io.StringIO(), verbosity=0)
    got = {}
    for obs in Observation.objects.filter(paper__arxiv_id="2412.14374").select_related(
        "resolution", "cited_paper", "cited_work"
    ):
        got[obs.reference_index] = (
            obs.resolution.status,
            obs.resolution.resolver_source,
            obs.cited_paper.arxiv_id if obs.cited_paper else None,
        )
        assert obs.resolution.origin == "computed"
        assert obs.resolution.evidence["resolver_version"]
        if obs.cited_paper:
            assert (
                obs.cited_work is not None and obs.cited_work.arxiv_id == obs.cited_paper.arxiv_id
            )
        else:
            assert obs.cited_work is None
    assert got == EXPECTED


def test_snapshot_update_of_a_paper_is_recorded_with_the_import_context(
    sample_record_path: Path,
) -> None:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    call_command(
        "import_arxiv_snapshot", str(FIXTURES / "seed_catalogue.jsonl"),
        "--no-requeue", "--reason", "monthly snapshot", stdout=io.StringIO(), verbosity=0,
    )  # fmt: skip
    event = PaperEvent.objects.filter(pgh_obj__arxiv_id="1604.06174").latest("pgh_id")
    assert event.in_catalogue is True
    assert event.pgh_context.metadata["reason"] == "monthly snapshot"
    assert event.pgh_context.metadata["actor"] == "command:import_arxiv_snapshot"
    assert event.pgh_context.metadata["source"] == "import"
