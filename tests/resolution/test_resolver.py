"""The resolver's decisions on single references (SPEC §2), and the Crossref API fallback."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from curation.references import parse_reference
from curation.resolution import resolver
from curation.resolution.models import CrossrefWork
from curation.resolution.resolver import resolve_raw
from tests.resolution.conftest import FIXTURES, WIDGET_REFERENCE
from tests.resolution.snapshot import snapshot_line

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalogue(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "cat.jsonl"
    path.write_text(
        (FIXTURES / "seed_catalogue.jsonl").read_text()
        + snapshot_line("1901.00001", "Attention Is All You Need", "Ann Vaswani", 2017)
        + "\n"
        + snapshot_line("1901.00002", "Attention Is All You Need", "Bo Other", 2023)
        + "\n"
    )
    call_command("import_arxiv_snapshot", str(path), "--no-requeue", stdout=io.StringIO(),
                 verbosity=0)  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "status", "arxiv_id"),
    [
        ("Sara Hooker. The hardware lottery. Commun. ACM, 2021.", "verified_exact", "2009.06489"),
        (
            "T. Chen. Training deep nets with sublinear memroy cost. 2016.",
            "verified_fuzzy",
            "1604.06174",
        ),  # fmt: skip
        ("Sara Hooker. The software lottery. 2021.", "unresolved", None),
        ("Jane Roe. The Hardware Lottery. 1995.", "metadata_mismatch", None),
        ("Vaswani, A. Attention is all you need. NeurIPS, 2017.", "verified_exact", "1901.00001"),
        ("Attention is all you need.", "unresolved", None),  # two papers of that title: a tie
        ("Roe, J. A study of cats. arXiv:2009.06489, 2020.", "metadata_mismatch", None),
        ("Roe, J. A study of cats. arXiv:1913.12345, 2020.", "malformed_identifier", None),
        ("https://github.com/NVIDIA/Megatron- LM/issues/1611", "unresolved", None),
        (
            "In Proceedings of the 45th International Conference on Software Engineering (ICSE '23)",
            "parse_uncertain",
            None,
        ),  # fmt: skip
    ],
)
def test_reference_verdicts(catalogue: None, raw: str, status: str, arxiv_id: str | None) -> None:
    _, verdict = resolve_raw(raw)
    assert (verdict.status, verdict.arxiv_id) == (status, arxiv_id), verdict.evidence
    assert verdict.evidence["resolver_version"] == resolver.RESOLVER_VERSION


def test_tie_lists_the_candidates_for_curators(catalogue: None) -> None:
    _, verdict = resolve_raw("Attention is all you need.")
    listed = {c["arxiv_id"] for c in verdict.evidence["candidates"]}
    assert {"1901.00001", "1901.00002"} <= listed


def test_unknown_doi_is_asked_of_crossref_when_online(
    catalogue: None, crossref_knows_widget: dict[str, object]
) -> None:
    _, verdict = resolve_raw(WIDGET_REFERENCE)
    assert (verdict.status, verdict.resolver_source, verdict.doi) == (
        "verified_exact",
        "doi",
        "10.5555/widget.1",
    )
    # The resolver reads and writes nothing: the answer goes back to its caller to keep.
    assert not CrossrefWork.objects.filter(doi="10.5555/widget.1").exists()
    item = resolver.ReferenceInput.from_parse(parse_reference(WIDGET_REFERENCE))
    assert resolver.resolve_batch([item]).fetched == [crossref_knows_widget]


def test_offline_unknown_doi_is_kept_as_evidence(catalogue: None) -> None:
    _, verdict = resolve_raw("Okafor, A. Widgets at scale. J. Widgets, 2018. doi:10.5555/widget.1")
    assert verdict.status == "unresolved"
    assert verdict.evidence["identifiers"]["unknown"] == ["doi:10.5555/widget.1"]
    assert "offline" in verdict.evidence["crossref"]["10.5555/widget.1"]
