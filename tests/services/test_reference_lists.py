"""Reference-list import keeps observation identity by text, not by number (SPEC §6)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from curation.audit import Actor, audited
from curation.models import Observation, ObservationEvent, ObservationListing
from curation.references import parse_reference
from curation.references.listed import ListedReference
from curation.references.stored import parse_from_stored
from curation.services import reference_list_import, reference_lists
from curation.services.reference_lists import reference_numbers

pytestmark = pytest.mark.django_db

GPIPE = "Huang, Y. et al. GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism. NeurIPS 2019."
MEGATRON = "Shoeybi, M. et al. Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism. arXiv:1909.08053, 2019."
ZERO = "Rajbhandari, S. et al. ZeRO: Memory Optimizations Toward Training Trillion Parameter Models. SC 2020."
ALPA = "Zheng, L. et al. Alpa: Automating Inter- and Intra-Operator Parallelism for Distributed Deep Learning. OSDI 2022."


Ref = ListedReference  # a reference as every reader returns it


def refs(*raws: str, labels: list[str] | None = None) -> list[Ref]:
    return [Ref(i, raw, labels[i - 1] if labels else None) for i, raw in enumerate(raws, start=1)]


def run(*raws: str, labels: list[str] | None = None):  # type: ignore[no-untyped-def]
    return reference_list_import(
        arxiv_id="2501.00042",
        references=refs(*raws, labels=labels),
        actor=Actor.importer("test"),
        reason="reference list",
    )


def live() -> list[Observation]:
    return list(Observation.objects.filter(retired_at__isnull=True).order_by("reference_index"))


def test_creates_observations_in_source_order_with_parsed_fields() -> None:
    outcome = run(GPIPE, MEGATRON, ZERO)

    assert outcome.created == 3
    observations = live()
    assert [o.reference_index for o in observations] == [1, 2, 3]
    assert observations[1].raw_text == MEGATRON
    assert observations[1].work_arxiv_id == "1909.08053"
    assert observations[1].work_metadata_source == "raw_reference"
    assert observations[0].work_year == 2019


def test_what_the_list_says_beside_the_text_is_kept_with_its_parse() -> None:
    listed = ListedReference(
        1, GPIPE, "huang19", fields={"title": "GPipe"}, key="huang19", doi="10.5555/gpipe"
    )
    reference_list_import(arxiv_id="2501.00042", references=[listed], actor=Actor.importer("t"),
                          reason="reference list")  # fmt: skip

    listing = ObservationListing.objects.get(observation__raw_text=GPIPE)
    assert listing.key == "huang19"
    assert listing.stated == {
        "key": "huang19", "label": "huang19", "fields": {"title": "GPipe"}, "doi": "10.5555/gpipe"
    }  # fmt: skip
    assert parse_from_stored(GPIPE, listing.parse) == parse_reference(GPIPE)


def test_reimporting_parses_only_what_changed_and_keeps_the_new_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run(GPIPE, MEGATRON, labels=["a", "b"])
    parsed: list[str] = []
    monkeypatch.setattr(reference_lists, "parse_reference", lambda raw: parsed.append(raw) or parse_reference(raw))

    reference_list_import(
        arxiv_id="2501.00042",
        references=[ListedReference(1, GPIPE, "a", key="a"), ListedReference(2, MEGATRON.upper(), "b2", key="b2")],
        actor=Actor.importer("t"), reason="reference list",
    )  # fmt: skip

    assert parsed == [MEGATRON.upper()]  # same text in other case: the kept parse is not its own
    keys = ObservationListing.objects.order_by("observation__reference_index").values_list("key", flat=True)
    assert list(keys) == ["a", "b2"]


def test_reimporting_the_same_list_changes_nothing() -> None:
    run(GPIPE, MEGATRON, ZERO)
    events = ObservationEvent.objects.count()

    outcome = run(GPIPE, MEGATRON, ZERO)

    assert (outcome.created, outcome.updated, outcome.unchanged, outcome.retired) == (0, 0, 3, 0)
    assert ObservationEvent.objects.count() == events


def test_corrected_list_keeps_decisions_of_unchanged_references_when_numbers_shift() -> None:
    run(GPIPE, MEGATRON, ZERO)
    megatron = Observation.objects.get(raw_text=MEGATRON)
    with audited(Actor.command("curator"), "checked by hand"):
        Observation.objects.filter(pk=megatron.pk).update(pinned=True)

    outcome = run(ALPA, GPIPE, MEGATRON)  # ALPA added first, ZERO removed

    assert (outcome.created, outcome.updated, outcome.retired) == (1, 2, 1)
    kept = Observation.objects.get(pk=megatron.pk)
    assert kept.pinned and kept.reference_index == 3 and kept.retired_at is None
    assert Observation.objects.get(raw_text=ZERO).retired_at is not None
    assert [o.raw_text for o in live()] == [ALPA, GPIPE, MEGATRON]


def test_a_retired_reference_that_returns_is_restored_not_duplicated() -> None:
    run(GPIPE, ZERO)
    run(GPIPE)
    outcome = run(GPIPE, ZERO)

    assert outcome.restored == 1 and outcome.created == 0
    assert Observation.objects.filter(raw_text=ZERO).count() == 1


def test_the_same_text_twice_is_two_occurrences() -> None:
    run(GPIPE, GPIPE)
    assert sorted(Observation.objects.values_list("occurrence", flat=True)) == [1, 2]


def test_identity_ignores_spacing_and_case_but_keeps_the_new_raw_text() -> None:
    run(GPIPE)
    outcome = run(GPIPE.upper().replace(" ", "  "))
    assert outcome.created == 0 and outcome.updated == 1
    assert Observation.objects.get().raw_text == GPIPE.upper().replace(" ", "  ")


def test_nul_bytes_are_dropped() -> None:
    run("Some\x00 Title of a Paper. 2020.")
    assert "\x00" not in Observation.objects.get().raw_text  # type: ignore[operator]


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (["1", "2", "3"], [1, 2, 3]),
        (["3", "4", "5"], [3, 4, 5]),
        (["1", "2022", "3"], [1, 2, 3]),  # a year read as a label
        (["1", None, "3"], [1, 2, 3]),
        (["a", "b", "c"], [1, 2, 3]),
        (["1", "1", "2"], [1, 2, 3]),
    ],
)
def test_reference_numbers_never_come_from_a_year(
    labels: list[str | None], expected: list[int]
) -> None:
    items = [Ref(i, "x", label) for i, label in enumerate(labels, start=1)]
    assert reference_numbers(items) == expected


def _command(arxiv_id: str, path: object, *extra: str) -> str:
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("import_references", arxiv_id, str(path), *extra, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_import_references_command_reads_numbered_text_and_bibtex(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = tmp_path / "refs.txt"
    text.write_text(f"[1] {GPIPE}\n[2] {MEGATRON}\n[3] {ZERO}\n")
    assert "created 3" in _command("2501.00042", text)

    text.write_text(f"[1] {ALPA}\n[2] {GPIPE}\n[3] {MEGATRON}\n")
    out = _command("2501.00042", text)
    assert "created 1, updated 2, unchanged 0, retired 1" in out

    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{huang2019gpipe, title={GPipe: Efficient Training of Giant Neural Networks},"
        " author={Huang, Yanping and Cheng, Youlong}, year={2019}, journal={NeurIPS}}\n"
        "@misc{broken, title={Unbalanced {braces}\n"
    )
    assert "created" in _command("2501.00043", bib, "--format", "bib")
    assert Observation.objects.filter(paper__arxiv_id="2501.00043").count() >= 1


def test_import_references_refuses_binary_input(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from django.core.management.base import CommandError

    binary = tmp_path / "paper.pdf"
    binary.write_bytes(b"%PDF-1.7\n\x00\x01\x02binary")
    with pytest.raises(CommandError, match="paper.pdf"):
        _command("2501.00044", binary)
    assert not Observation.objects.exists()


@pytest.mark.parametrize("given", ["not an id/../x", "2601.900010", "2413.00001", "", "hep-xx/9901001"])
def test_import_references_refuses_what_is_not_an_arxiv_id(tmp_path, given) -> None:  # type: ignore[no-untyped-def]
    from curation.models import Paper

    path = tmp_path / "refs.txt"
    path.write_text(GPIPE + "\n")
    with pytest.raises(CommandError, match="is not an arXiv id"):
        call_command("import_references", given, str(path), stdout=io.StringIO(), stderr=io.StringIO())
    with pytest.raises(ValueError, match="is not an arXiv id"):
        reference_list_import(arxiv_id=given, references=refs(GPIPE), actor=Actor.importer("t"), reason="r")
    assert not Paper.objects.exists()
    assert not Observation.objects.exists()


def test_import_references_takes_an_id_with_prefix_and_version_as_the_bare_id(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "refs.txt"
    path.write_text(GPIPE + "\n")
    call_command("import_references", "arXiv:2501.00042v3", str(path), stdout=io.StringIO())
    assert [o.paper.arxiv_id for o in live()] == ["2501.00042"]


def test_a_reference_longer_than_an_index_entry_is_imported_and_keeps_its_identity() -> None:
    authors = ", ".join(f"Author{n:04d}, A." for n in range(400))  # a collaboration: about 5,600 bytes
    huge = f"{authors} The collaboration's paper. Phys. Rev. D 98, 030001 (2018)."
    assert len(huge.encode()) > 2704  # a B-tree entry's limit
    first = run(huge, GPIPE)
    again = run(huge, GPIPE)
    assert (first.created, again.created, again.unchanged) == (2, 0, 2)
